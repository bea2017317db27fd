/** The process search results: one row a process, linking to its analysis page. */
import { count, when } from '../format.js';
import { href } from '../router.js';

export interface ProcessDoc {
  id: string;
  unique_id: string;
  segment_id: number;
  process_name: string;
  hostname: string;
  username: string;
  start: string;
  last_update: string;
  cmdline?: string;
  filemod_count: number;
  regmod_count: number;
  netconn_count: number;
  modload_count: number;
  childproc_count: number;
  crossproc_count: number;
  watchlists?: { wid: string; value: string }[];
}

export function ProcessResults({ results }: { results: ProcessDoc[] }) {
  return (
    <table class="results">
      <caption class="visually-hidden">Matching processes</caption>
      <thead>
        <tr>
          <th scope="col">Process</th><th scope="col">Host</th><th scope="col">User</th><th scope="col">Start</th>
          <th scope="col">Last update</th><th scope="col">Events</th><th scope="col">Watchlists</th>
        </tr>
      </thead>
      <tbody>
        {results.map((doc) => (
          <tr key={doc.unique_id}>
            <td>
              <a href={href(['process', doc.id, '0'])}>{doc.process_name}</a>
              {doc.cmdline && <div class="cmdline">{doc.cmdline}</div>}
            </td>
            <td>{doc.hostname}</td>
            <td>{doc.username}</td>
            <td>{when(doc.start)}</td>
            <td>{when(doc.last_update)}</td>
            <td class="counts">
              {`files ${count(doc.filemod_count)} · reg ${count(doc.regmod_count)} · net ${count(doc.netconn_count)} · ` +
                `mod ${count(doc.modload_count)} · child ${count(doc.childproc_count)} · cross ${count(doc.crossproc_count)}`}
            </td>
            <td>{(doc.watchlists ?? []).map((w) => <span key={w.wid} class="tag">watchlist {w.wid}</span>)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
