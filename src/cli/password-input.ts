/**
 * Reading a password in the shell: never from argv (other users see it in the process list). On a
 * terminal it is typed twice without echo; otherwise it is the whole of standard input, less one
 * trailing newline (as `echo pw |` sends it).
 */
import { InvalidRequestError } from '../domain/errors.js';

export async function readNewPassword(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) return readPasswordFromStdin();
  const first = await readHiddenLine(prompt);
  const second = await readHiddenLine('Again: ');
  if (first !== second) throw new InvalidRequestError('password: the two entries differ');
  if (first.length === 0) throw new InvalidRequestError('password: empty');
  return first;
}

export async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (password.length === 0) throw new InvalidRequestError('password: standard input was empty');
  return password;
}

/** One line from the terminal in raw mode, so nothing typed is echoed. Ctrl-C or Ctrl-D gives up. */
function readHiddenLine(prompt: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let line = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(line);
    };
    const onData = (typed: string) => {
      for (const char of typed) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003' || char === '\u0004') return finish(new InvalidRequestError('password: not entered'));
        if (char === '\u007f' || char === '\b') line = line.slice(0, -1);
        else line += char;
      }
    };
    input.on('data', onData);
  });
}
