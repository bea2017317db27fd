/** The process's binary: signature, publisher, where it was seen, and a download of the file itself. */
import { useState } from 'preact/hooks';
import { ApiError, get } from '../api.js';
import { downloadFile } from '../download.js';
import { count } from '../format.js';
import { useLoad } from '../use-load.js';

interface BinarySummary {
  md5: string;
  digsig_result?: string;
  digsig_publisher?: string;
  product_name?: string;
  observed_filename?: string[];
  host_count?: number;
  endpoint?: string[];
  orig_mod_len?: number;
}

export function BinaryDetails({ md5 }: { md5: string }) {
  const binary = useLoad(md5, () => get<BinarySummary>(`/api/v1/binary/${md5}/summary`));
  const [failure, setFailure] = useState('');
  return (
    <section aria-labelledby="binary-heading">
      <h2 id="binary-heading">Binary</h2>
      <p class="mono">{md5}</p>
      {binary.error instanceof ApiError && binary.error.status === 404 && <p class="muted">The server has no record of this binary yet.</p>}
      {binary.data && (
        <>
          <dl class="facts">
            <dt>Signature</dt><dd>{binary.data.digsig_result ?? 'unknown'}</dd>
            <dt>Publisher</dt><dd>{binary.data.digsig_publisher ?? ''}</dd>
            <dt>Product</dt><dd>{binary.data.product_name ?? ''}</dd>
            <dt>Seen as</dt><dd>{(binary.data.observed_filename ?? []).join(', ')}</dd>
            <dt>Hosts</dt><dd>{count(binary.data.host_count)}{binary.data.endpoint?.length ? `: ${binary.data.endpoint.map((e) => e.split('|')[0]).join(', ')}` : ''}</dd>
          </dl>
          <button type="button" onClick={() => downloadFile(`/api/v1/binary/${md5}`, `${md5}.zip`).catch((e: unknown) => setFailure(e instanceof Error ? e.message : 'The download failed.'))}>Download binary</button>
          {failure && <p role="alert" class="error">{failure}</p>}
        </>
      )}
    </section>
  );
}
