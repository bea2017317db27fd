/** What a username may be: safe in a URL path segment, a log line and a shell argument. */
export const USERNAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,63}$';
export const USERNAME_RULE = 'letters, digits and _ . @ + -, starting with a letter or digit, at most 64 characters';

const username = new RegExp(USERNAME_PATTERN);

export function isValidUsername(candidate: string): boolean {
  return username.test(candidate);
}
