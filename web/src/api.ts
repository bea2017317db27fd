/**
 * The console's only way to the server: the public REST API on this origin. A login by password
 * gives a session cookie (HttpOnly, so no script here can read it) and a CSRF token that every
 * state-changing call carries; a pasted API token is sent as X-Auth-Token instead (ADR 0021).
 * The credential lives in sessionStorage: gone when the tab closes.
 */

export interface Credential {
  kind: 'session' | 'token';
  username: string;
  globalAdmin: boolean;
  /** The CSRF token (session) or the API token (token). */
  secret: string;
}

const STORAGE_KEY = 'vigil.credential';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    /** Where a refused query went wrong (0-based), when the server says. */
    readonly position?: number,
  ) {
    super(message);
  }
}

let current: Credential | undefined = load();
const listeners = new Set<() => void>();

function load(): Credential | undefined {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  return raw ? (JSON.parse(raw) as Credential) : undefined;
}

export function credential(): Credential | undefined {
  return current;
}

export function onCredentialChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setCredential(next: Credential | undefined): void {
  current = next;
  if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  else sessionStorage.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener();
}

type Query = Record<string, string | number | boolean | readonly (string | number)[] | undefined>;

export function queryString(params: Query): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === '') continue;
    for (const one of Array.isArray(value) ? value : [value]) search.append(key, String(one));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { reason?: string; message?: string; position?: number };
    return new ApiError(response.status, body.reason ?? 'error', body.message ?? text, body.position);
  } catch {
    return new ApiError(response.status, response.status === 401 ? 'unauthorized' : 'error', response.statusText || `HTTP ${response.status}`);
  }
}

/** The credential's headers: the API token, or on a write the session's CSRF token. */
function credentialHeaders(method: string): Record<string, string> {
  if (current?.kind === 'token') return { 'x-auth-token': current.secret };
  return current && method !== 'GET' ? { 'x-csrf-token': current.secret } : {};
}

async function send<T>(method: string, url: string, headers: Record<string, string>, body: BodyInit | null): Promise<T> {
  const response = await fetch(url, { method, headers: { accept: 'application/json', ...credentialHeaders(method), ...headers }, credentials: 'same-origin', body });
  if (response.status === 401 && current) setCredential(undefined);
  if (!response.ok) throw await errorOf(response);
  // Some writes answer 200 with no body, as Carbon Black's did (a sensor PUT).
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export function request<T>(method: string, path: string, body?: unknown, query: Query = {}): Promise<T> {
  const json: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  return send<T>(method, `${path}${queryString(query)}`, json, body === undefined ? null : JSON.stringify(body));
}

/** Posts a file as the multipart field `field`, as cbapi uploads one; the browser sets the boundary. */
export function upload<T>(path: string, field: string, file: File): Promise<T> {
  const form = new FormData();
  form.append(field, file, file.name);
  return send<T>('POST', path, {}, form);
}

export const get = <T>(path: string, query?: Query) => request<T>('GET', path, undefined, query);
export const post = <T>(path: string, body: unknown) => request<T>('POST', path, body);
export const put = <T>(path: string, body: unknown) => request<T>('PUT', path, body);

interface SessionReply {
  username: string;
  global_admin: boolean;
  csrf_token?: string;
}

export async function loginWithPassword(username: string, password: string): Promise<void> {
  const reply = await post<SessionReply>('/api/auth/login', { username, password });
  setCredential({ kind: 'session', username: reply.username, globalAdmin: reply.global_admin, secret: reply.csrf_token ?? '' });
}

export async function loginWithToken(token: string): Promise<void> {
  setCredential({ kind: 'token', username: '', globalAdmin: false, secret: token });
  try {
    const reply = await get<SessionReply>('/api/auth/session');
    setCredential({ kind: 'token', username: reply.username, globalAdmin: reply.global_admin, secret: token });
  } catch (error) {
    setCredential(undefined);
    throw error;
  }
}

export async function logout(): Promise<void> {
  try {
    if (current?.kind === 'session') await post('/api/auth/logout', {});
  } finally {
    setCredential(undefined);
  }
}
