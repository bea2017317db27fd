/**
 * The fast path of `_bulk` bodies read on a reader thread holds to the plain one: every document
 * of the real recordings, sent as Winlogbeat bulk bodies and read on a thread, settles to what
 * decoding each document on the request thread gives (the code before reader threads), in order,
 * and a body that cannot be read is refused by the same name either way.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { recordingEvents } from '../../../test/support/sysmon-fixtures.js';
import { toEcs } from '../../../test/support/sysmon-shapes.js';
import { IngestRejection } from '../../ingest/rejection.js';
import { SysmonDecoder } from '../../ingest/sysmon/sysmon-decoder.js';
import type { SysmonRecord } from '../../ingest/sysmon/sysmon-fields.js';
import { flatten } from '../../ingest/sysmon/sysmon-shapes.js';
import { BulkReaders } from './bulk-readers.js';

const RECORDINGS = ['cmd_sam_copy_esentutl', 'empire_mimikatz_logonpasswords', 'psh_lsass_memory_dump_comsvcs', 'schtask_create'];
const NOW = Date.parse('2026-11-26T00:00:00Z');
const MAX_DECODED = 64 * 1024 * 1024;

/** JSON keeps no undefined fields; every field reader takes absent and undefined alike. */
const asSent = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A Security event, which the decoder's memory settles, closes each body, and then a line that is no JSON. */
const SECURITY = { winlog: { event_id: 4688, channel: 'Security', computer_name: 'H', event_data: { NewProcessId: '0x10', NewProcessName: 'C:\\a.exe' } }, '@timestamp': '2026-11-25T10:00:00Z' };

function bulkBody(documents: Record<string, unknown>[]): Buffer {
  const lines = documents.flatMap((document) => ['{"create":{"_index":"logs"}}', JSON.stringify(document)]);
  return gzipSync(`${lines.join('\n')}\nnot json\n`);
}

describe('Sysmon bulk bodies read on a reader thread', () => {
  const threaded = new BulkReaders(1, MAX_DECODED);
  const inline = new BulkReaders(0, MAX_DECODED);
  after(() => threaded.close());

  it('settle, document by document, as decoding each on the request thread did, for every recorded event', async () => {
    let compared = 0;
    for (const name of RECORDINGS) {
      const documents = [...recordingEvents(name).map(toEcs), SECURITY];
      const body = bulkBody(documents);
      const fromThread = await threaded.read(Buffer.from(body), 'gzip', NOW);
      const onThisThread = await inline.read(Buffer.from(body), 'gzip', NOW);
      assert.deepEqual(fromThread, asSent(onThisThread), name);

      const settling = new SysmonDecoder();
      const plain = new SysmonDecoder();
      const expected = documents.map((document) => plain.decode((flatten(structuredClone(document)) as { record: SysmonRecord }).record, NOW));
      const decoded = fromThread.items.filter((item) => 'decoded' in item);
      assert.equal(decoded.length, documents.length);
      decoded.forEach((item, i) => {
        assert.ok('decoded' in item);
        assert.deepEqual(asSent(settling.settle(item.decoded, NOW)), asSent(expected[i]), `${name} #${i}`);
        compared++;
      });
      assert.deepEqual(fromThread.items.at(-1), { head: { action: 'index', line: documents.length * 2 + 1 }, refused: 'not an action line ({"index":{…}}, {"create":{…}}, …)' });
    }
    assert.ok(compared > 1_000, `${compared} documents compared`);
  });

  it('refuses a body that is no gzip, or unzips past the limit, by the same names as on the request thread', async () => {
    const small = new BulkReaders(1, 1024);
    try {
      for (const [body, reason] of [[Buffer.from('not gzip'), 'bad_encoding'], [gzipSync(Buffer.alloc(4096, 0x20)), 'batch_too_large']] as const) {
        for (const readers of [small, new BulkReaders(0, 1024)]) {
          await assert.rejects(readers.read(Buffer.from(body), 'gzip', NOW), (error) => error instanceof IngestRejection && error.batchReason === reason);
        }
      }
    } finally {
      await small.close();
    }
  });
});
