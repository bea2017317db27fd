/**
 * A live response session on a sensor, as a terminal: type a command, see its output when the
 * sensor answers. Commands and the session are the API's (/api/v1/cblr); nothing runs here.
 * `put` first uploads the chosen file to the session, then sends the put file command naming it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post, upload } from '../api.js';
import { downloadFile } from '../download.js';
import { useLoad } from '../use-load.js';

const SESSION_REFRESH_MS = 3000;

/** Terminal words → the API's command names. */
const COMMANDS: Record<string, string> = {
  ps: 'process list', kill: 'kill', dir: 'directory list', get: 'get file', put: 'put file', reg: 'reg enum key', exec: 'create process',
  del: 'delete file',
};

interface Session {
  id: number;
  status: string;
  sensor_id: number;
  hostname?: string;
}

interface Command {
  id: number;
  name: string;
  status: string;
  result_desc?: string;
  file_id?: number;
  [output: string]: unknown;
}

/** One command and what it has said so far: its output replaces the waiting notice in place. */
interface Line {
  key: number;
  input: string;
  output: string;
  /** A file the command fetched from the host ("get"), to download. */
  fileId?: number;
}

/** Bookkeeping the terminal already shows or need not; the rest is the command's outcome and output. */
const HIDDEN = new Set(['id', 'name', 'session_id', 'create_time', 'completion', 'object']);

function render(command: Command): string {
  return JSON.stringify(Object.fromEntries(Object.entries(command).filter(([key]) => !HIDDEN.has(key))), null, 2);
}

export function LiveResponsePage({ id }: { id: string }) {
  const session = useLoad(`cblr-${id}`, () => get<Session>(`/api/v1/cblr/session/${encodeURIComponent(id)}`));
  const [lines, setLines] = useState<Line[]>([]);
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | undefined>();
  const fileInput = useRef<HTMLInputElement>(null);
  const nextKey = useRef(0);
  useEffect(() => {
    const timer = setInterval(session.reload, SESSION_REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  const run = async (input: string) => {
    const [word = '', ...rest] = input.trim().split(/\s+/);
    const name = COMMANDS[word];
    const key = nextKey.current++;
    setLines((all) => [...all, { key, input, output: '' }]);
    const say = (output: string, fileId?: number) =>
      setLines((all) => all.map((line) => (line.key === key ? { key, input, output, ...(fileId === undefined ? {} : { fileId }) } : line)));
    if (!name) return say(`unknown command; use one of: ${Object.keys(COMMANDS).join(', ')}`);
    const object = rest.join(' ');
    const putting = name === 'put file' ? file : undefined;
    if (name === 'put file' && (!putting || !object)) return say('put needs a file chosen below and the path to write it to on the host: put c:\\temp\\tool.exe');
    try {
      const sent = putting ? await upload<{ id: number }>(`/api/v1/cblr/session/${id}/file`, 'file', putting) : undefined;
      const queued = await post<{ id: number }>(`/api/v1/cblr/session/${id}/command`, { name, ...(object ? { object } : {}), ...(sent ? { file_id: sent.id } : {}) });
      say(`queued as command ${queued.id}, waiting for the sensor…`);
      if (sent) { setFile(undefined); if (fileInput.current) fileInput.current.value = ''; }
      const done = await get<Command>(`/api/v1/cblr/session/${id}/command/${queued.id}`, { wait: 'true' });
      say(render(done), done.status === 'complete' && name === 'get file' ? done.file_id : undefined);
    } catch (error) {
      say(error instanceof Error ? error.message : 'The command failed.');
    }
  };

  return (
    <div>
      <h1>Live response session {id}</h1>
      <p aria-live="polite">{session.data ? `Sensor ${session.data.sensor_id}${session.data.hostname ? ` (${session.data.hostname})` : ''}: ${session.data.status}` : 'Loading…'}</p>
      <div class="terminal" role="log" aria-label="Session output" tabIndex={0}>
        {lines.map((line) => (
          <div key={line.key}>
            <span class="prompt">&gt; {line.input}</span>{'\n'}{line.output}
            {line.fileId !== undefined && (
              <button type="button" onClick={() => void downloadFile(`/api/v1/cblr/session/${id}/file/${line.fileId}/content`, line.input.split(/[\\/]/).pop() ?? 'file')}>Download file</button>
            )}
          </div>
        ))}
      </div>
      <form class="query" onSubmit={(e) => { e.preventDefault(); const input = text; setText(''); void run(input); }}>
        <label for="lr-command">Command</label>
        <input id="lr-command" autoComplete="off" spellcheck={false} value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder="ps · dir c:\\ · kill 1234 · get c:\\file · put c:\\file · reg HKLM\\Software · exec cmd.exe /c ver" />
        <button type="submit">Run</button>
        <label for="lr-put-file">File to put</label>
        <input id="lr-put-file" type="file" ref={fileInput} onChange={(e) => setFile(e.currentTarget.files?.[0])} />
      </form>
    </div>
  );
}
