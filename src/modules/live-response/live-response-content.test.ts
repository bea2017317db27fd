/**
 * Where live-response file content is kept, each kind on real storage: files under a directory,
 * and pieces in the database on both dialects. The same cases for each: content larger than a
 * piece reads back whole with its size, an empty file is content, a missing one is not, content
 * past the limit is refused and leaves nothing, a second put replaces the first, remove forgets.
 * In the database, content a sensor sent through one server reads on another.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { dialects } from '../../../test/support/dialects.js';
import { tempDir } from '../../../test/support/temp.js';
import { twoPostgresServers, type TwoServers } from '../../../test/support/two-servers.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { SqlLiveResponseContent } from './live-response-content.sql.js';
import { ContentTooLargeError, LiveResponseFiles, type LiveResponseContent } from './live-response-files.js';
import { SqlLiveResponseStore } from './live-response.store.js';

const LIMIT = 4 * 1024 * 1024;

/** A live-response file record (the database's pieces belong to one) and its id. */
async function fileIn(db: SqlDatabase): Promise<() => Promise<number>> {
  const sensor = await new SqlSensorsStore(db).register({
    groupId: 1, secretHash: 'x', osType: 'windows', hostType: 'workstation', registrationMs: 1, computerName: 'WIN-FILES',
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
    buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  const store = new SqlLiveResponseStore(db);
  const { session } = await store.openSession({ sensorId: sensor.id, userId: 1, username: 'admin', nowMs: 1 });
  return async () => (await store.createFile(session.id, 'memory.dmp', 1)).id;
}

/** Reads in several chunks, as a socket would bring them. */
const streamOf = (bytes: Buffer) => Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]);

function contentContract(make: () => Promise<{ content: LiveResponseContent; newFile: () => Promise<number> }>) {
  let content: LiveResponseContent;
  let newFile: () => Promise<number>;
  before(async () => {
    ({ content, newFile } = await make());
  });

  it('reads back content larger than a piece, whole, with its size', async () => {
    const id = await newFile();
    const bytes = randomBytes(2.5 * 1024 * 1024);
    assert.equal(await content.put(id, streamOf(bytes)), bytes.length);
    const read = (await content.open(id))!;
    assert.equal(read.size, bytes.length);
    assert.ok((await buffer(read.stream)).equals(bytes));
  });

  it('keeps an empty file as content, and has none for a file never put', async () => {
    const empty = await newFile();
    assert.equal(await content.put(empty, Readable.from([])), 0);
    const read = (await content.open(empty))!;
    assert.equal(read.size, 0);
    assert.equal((await buffer(read.stream)).length, 0);
    assert.equal(await content.open(await newFile()), undefined);
  });

  it('refuses content past the limit and keeps nothing of it', async () => {
    const id = await newFile();
    await assert.rejects(content.put(id, streamOf(randomBytes(LIMIT + 1))), ContentTooLargeError);
    assert.equal(await content.open(id), undefined);
  });

  it('replaces content put again, and forgets removed content', async () => {
    const id = await newFile();
    await content.put(id, streamOf(randomBytes(3000)));
    await content.put(id, Readable.from([Buffer.from('second')]));
    assert.equal((await buffer((await content.open(id))!.stream)).toString(), 'second');
    await content.remove([id]);
    assert.equal(await content.open(id), undefined);
  });
}

describe('live-response content in files', () => {
  const opened: SqlDatabase[] = [];
  after(async () => {
    for (const db of opened) await db.close();
  });
  contentContract(async () => {
    const db = await dialects.find((d) => d.name === 'sqlite')!.freshDatabase();
    opened.push(db);
    return { content: new LiveResponseFiles(join(tempDir('vigil-lr-files-'), 'files'), LIMIT), newFile: await fileIn(db) };
  });
});

for (const dialect of dialects) {
  describe(`live-response content in the database on ${dialect.name}`, () => {
    const opened: SqlDatabase[] = [];
    after(async () => {
      for (const db of opened) await db.close();
    });
    contentContract(async () => {
      const db = await dialect.freshDatabase();
      opened.push(db);
      return { content: new SqlLiveResponseContent(db, LIMIT), newFile: await fileIn(db) };
    });
  });
}

describe('live-response content across two servers on PostgreSQL', () => {
  let servers: TwoServers;
  before(async () => {
    servers = await twoPostgresServers();
  });
  after(() => servers.close());

  it('reads on one server what the sensor sent through the other', async () => {
    const id = await (await fileIn(servers.a))();
    const bytes = randomBytes(1.5 * 1024 * 1024);
    await new SqlLiveResponseContent(servers.b, LIMIT).put(id, streamOf(bytes));
    const read = (await new SqlLiveResponseContent(servers.a, LIMIT).open(id))!;
    assert.ok((await buffer(read.stream)).equals(bytes));
  });
});
