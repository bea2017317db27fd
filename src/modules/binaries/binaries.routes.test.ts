/**
 * Binaries uploaded through the real sensor protocol, read back through the analyst API: the
 * summary, the zip download (unzipped and compared) and the icon.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decode, encode } from 'fast-png';
import { unzipSync } from 'fflate';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { binaryMetadata, registerSensor, uploadBinary, type TestSensor } from '../../../test/support/sensors.js';
import type { BinaryMetadata } from './binary-upload.schemas.js';

const SOLR_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/;
const NOT_FOUND_PAGE = /The requested URL was not found on the server/;

/** A few hundred bytes that look like a PE file, different for every `seed`. */
function peFile(seed: number): Buffer {
  const content = Buffer.alloc(2048, seed);
  content.write('MZ', 0, 'latin1');
  content.writeUInt32LE(seed, 64);
  return content;
}

function png(width: number, rgba: number[]): Buffer {
  const data = new Uint8Array(width * width * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return Buffer.from(encode({ width, height: width, data, channels: 4 }));
}

describe('binary routes', () => {
  let test: TestApp;
  let workstation: TestSensor;
  let laptop: TestSensor;
  const admin = () => as(test.adminToken);
  const get = (url: string, headers: Record<string, string> = admin()) => test.app.inject({ url, headers });

  before(async () => {
    test = await startTestApp();
    workstation = await registerSensor(test, { computer_name: 'WIN-ACCT-07' });
    laptop = await registerSensor(test, { computer_name: 'WIN-LAP-12' });
  });
  after(() => test.close());

  async function upload(sensor: TestSensor, metadata: BinaryMetadata, content?: Buffer): Promise<void> {
    const response = await uploadBinary(test, sensor, metadata, content);
    assert.equal(response.statusCode, 200, response.body);
  }

  it('summarises a binary from what its sensors reported, in the real server\'s types', async () => {
    const content = peFile(1);
    const icon = png(16, [200, 30, 30, 255]);
    const metadata = binaryMetadata(content, {
      observed_filename: 'C:\\Program Files\\Acme\\Tool.exe', original_filename: 'Tool.exe', internal_name: 'tool',
      company_name: 'Acme Corp', product_name: 'Acme Tool', product_version: '2.1.0', file_version: '2.1.0.77',
      file_desc: 'Acme command line tool', legal_copyright: '© Acme Corp', legal_trademark: 'Acme™', comments: 'built by CI',
      is_executable_image: true, is_64bit: true, icon: icon.toString('base64'),
      digsig: {
        result: 'Signed', result_code: '0', publisher: 'Acme Corp', issuer: 'DigiCert Trusted G4 Code Signing CA',
        subject: 'Acme Corp', prog_name: 'Acme Tool', sign_time: Date.parse('2024-03-05T09:21:00.250Z'),
      },
    });
    await upload(workstation, metadata, content);
    await upload(laptop, { ...metadata, observed_filename: 'D:\\Portable\\TOOL.EXE' });

    const response = await get(`/api/v1/binary/${metadata.md5}/summary`);
    assert.equal(response.statusCode, 200, response.body);
    const { server_added_timestamp: added, timestamp, last_seen: lastSeen, icon: iconBase64, ...rest } = response.json();
    assert.deepEqual(rest, {
      md5: metadata.md5.toUpperCase(),
      sha256: metadata.sha256,
      orig_mod_len: 2048,
      copied_mod_len: 2048,
      observed_filename: ['c:\\program files\\acme\\tool.exe', 'd:\\portable\\tool.exe'],
      original_filename: 'Tool.exe',
      internal_name: 'tool',
      company_name: 'Acme Corp',
      product_name: 'Acme Tool',
      product_version: '2.1.0',
      file_version: '2.1.0.77',
      file_desc: 'Acme command line tool',
      legal_copyright: '© Acme Corp',
      legal_trademark: 'Acme™',
      comments: 'built by CI',
      is_executable_image: true,
      is_64bit: true,
      digsig_result: 'Signed',
      signed: 'Signed',
      digsig_result_code: '0',
      digsig_sign_time: '2024-03-05T09:21:00Z',
      digsig_publisher: 'Acme Corp',
      digsig_issuer: 'DigiCert Trusted G4 Code Signing CA',
      digsig_subject: 'Acme Corp',
      digsig_prog_name: 'Acme Tool',
      host_count: 2,
      endpoint: [`WIN-ACCT-07|${workstation.id}`, `WIN-LAP-12|${laptop.id}`],
      group: ['Default Group'],
      os_type: 'Windows',
      cb_version: 620,
      watchlists: [],
    });
    for (const time of [added, timestamp, lastSeen]) assert.match(time, SOLR_TIME);
    assert.equal(timestamp, added);
    assert.ok(Date.parse(lastSeen) >= Date.parse(added));
    assert.deepEqual(Buffer.from(iconBase64, 'base64'), icon);
  });

  it('says (Unknown) for a binary whose sensor said nothing of a signature, and leaves absent fields out', async () => {
    const metadata = binaryMetadata(peFile(2), { observed_filename: '/usr/local/bin/thing' });
    await upload(workstation, metadata);
    const summary = (await get(`/api/v1/binary/${metadata.md5}/summary`)).json();
    assert.equal(summary.digsig_result, '(Unknown)');
    assert.equal(summary.signed, '(Unknown)');
    assert.equal(summary.copied_mod_len, 0, 'metadata only: no content collected');
    assert.equal(summary.is_executable_image, false);
    for (const field of ['original_filename', 'company_name', 'digsig_publisher', 'digsig_sign_time', 'digsig_result_code']) {
      assert.ok(!(field in summary), `${field} is absent`);
    }
  });

  it('matches md5s in any case, and answers 404 pages for unknown and malformed ones', async () => {
    const metadata = binaryMetadata(peFile(3), { observed_filename: 'C:\\x.exe' });
    await upload(workstation, metadata, peFile(3));
    const lower = metadata.md5.toLowerCase();
    const mixed = lower.slice(0, 16) + lower.slice(16).toUpperCase();
    const bodies = new Set<string>();
    for (const md5 of [lower, lower.toUpperCase(), mixed]) {
      const response = await get(`/api/v1/binary/${md5}/summary`);
      assert.equal(response.statusCode, 200, md5);
      bodies.add(response.body);
      assert.equal((await get(`/api/v1/binary/${md5}`)).statusCode, 200);
      assert.equal((await get(`/api/v1/binary/${md5}/icon`)).statusCode, 200);
    }
    assert.equal(bodies.size, 1, 'the same document whatever the case');
    for (const md5 of ['0'.repeat(32), 'xyz', lower.slice(1), `${lower}0`, `${lower.slice(1)}g`]) {
      for (const suffix of ['/summary', '', '/icon']) {
        const response = await get(`/api/v1/binary/${md5}${suffix}`);
        assert.equal(response.statusCode, 404, `${md5}${suffix}`);
        assert.match(response.body, NOT_FOUND_PAGE);
      }
    }
  });

  it('downloads a zip holding the content as filedata and the metadata text', async () => {
    const content = peFile(4);
    const metadata = binaryMetadata(content, { observed_filename: 'C:\\Windows\\System32\\Drivers\\AppID.sys' });
    await upload(workstation, metadata, content);
    await upload(laptop, { ...metadata, observed_filename: 'C:\\elsewhere.sys' });

    const response = await get(`/api/v1/binary/${metadata.md5.toLowerCase()}`);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/zip');
    assert.equal(response.headers['content-disposition'], undefined, 'the real server sent none');
    const members = unzipSync(response.rawPayload);
    assert.deepEqual(Object.keys(members).sort(), ['filedata', 'metadata']);
    assert.deepEqual(Buffer.from(members.filedata!), content);

    const added = new Date((await get(`/api/v1/binary/${metadata.md5}/summary`)).json().server_added_timestamp);
    const two = (n: number) => String(n).padStart(2, '0');
    const stamp = `${two(added.getUTCMonth() + 1)}/${two(added.getUTCDate())}/${added.getUTCFullYear()} ` +
      `${two(added.getUTCHours())}:${two(added.getUTCMinutes())}:${two(added.getUTCSeconds())}`;
    assert.equal(
      Buffer.from(members.metadata!).toString('utf8'),
      `Timestamp                      : ${stamp}\r\nOrigFilename                   : C:\\Windows\\System32\\Drivers\\AppID.sys\r\n`,
    );
  });

  it('answers 404 for the download while only metadata was uploaded', async () => {
    const content = peFile(5);
    const metadata = binaryMetadata(content, { observed_filename: 'C:\\later.exe' });
    await upload(workstation, metadata);
    assert.equal((await get(`/api/v1/binary/${metadata.md5}/summary`)).statusCode, 200);
    const missing = await get(`/api/v1/binary/${metadata.md5}`);
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, NOT_FOUND_PAGE);

    await upload(laptop, metadata, content);
    const download = await get(`/api/v1/binary/${metadata.md5}`);
    assert.equal(download.statusCode, 200);
    assert.deepEqual(Buffer.from(unzipSync(download.rawPayload).filedata!), content);
    assert.equal((await get(`/api/v1/binary/${metadata.md5}/summary`)).json().copied_mod_len, content.length);
  });

  it('serves the sensor\'s icon as PNG, or the default application icon when it sent none', async () => {
    const icon = png(32, [10, 120, 60, 255]);
    const withIcon = binaryMetadata(peFile(6), { observed_filename: 'C:\\a.exe', icon: icon.toString('base64') });
    const without = binaryMetadata(peFile(7), { observed_filename: 'C:\\b.exe' });
    await upload(workstation, withIcon);
    await upload(workstation, without);

    const own = await get(`/api/v1/binary/${withIcon.md5}/icon`);
    assert.equal(own.statusCode, 200);
    assert.equal(own.headers['content-type'], 'image/png');
    assert.deepEqual(own.rawPayload, icon);

    const fallback = await get(`/api/v1/binary/${without.md5}/icon`);
    assert.equal(fallback.headers['content-type'], 'image/png');
    const image = decode(fallback.rawPayload);
    assert.deepEqual([image.width, image.height], [32, 32]);
    const summary = (await get(`/api/v1/binary/${without.md5}/summary`)).json();
    assert.deepEqual(Buffer.from(summary.icon, 'base64'), fallback.rawPayload, 'the summary carries the icon the icon route serves');
  });

  it('refuses an icon that is not a PNG', async () => {
    const metadata = binaryMetadata(peFile(8), { observed_filename: 'C:\\c.exe', icon: Buffer.from('GIF89a...').toString('base64') });
    const response = await uploadBinary(test, workstation, metadata);
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().reason, 'invalid_icon');
    assert.equal((await get(`/api/v1/binary/${metadata.md5}/summary`)).statusCode, 404, 'nothing was recorded');
  });

  it('answers 401 without a valid token', async () => {
    const metadata = binaryMetadata(peFile(9), { observed_filename: 'C:\\d.exe' });
    await upload(workstation, metadata, peFile(9));
    for (const suffix of ['/summary', '', '/icon']) {
      for (const headers of [{}, as('0'.repeat(40))]) {
        const response = await get(`/api/v1/binary/${metadata.md5}${suffix}`, headers);
        assert.equal(response.statusCode, 401, suffix);
      }
    }
  });

  describe('visibility', () => {
    let servers: TestSensor;
    let viewerToken: string;
    let outsiderToken: string;

    before(async () => {
      const group = await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload: { name: 'Servers' } });
      const groupId = group.json().id as number;
      servers = await registerSensor(test, { computer_name: 'SRV-DB-01' }, groupId);
      const team = await test.app.inject({
        method: 'POST', url: '/api/team', headers: admin(),
        payload: { name: 'Workstation analysts', group_access: [{ group_id: 1, access_category: 'Viewer' }] },
      });
      viewerToken = await createUser(test, { username: 'ws-analyst', teams: [team.json().id] });
      outsiderToken = await createUser(test, { username: 'nobody' });
    });

    it('shows an analyst only the observations in groups they can view', async () => {
      const content = peFile(10);
      const metadata = binaryMetadata(content, { observed_filename: 'C:\\Shared\\Agent.exe' });
      await upload(workstation, metadata, content);
      await upload(servers, { ...metadata, observed_filename: 'E:\\Agent\\agent.exe' });

      const full = (await get(`/api/v1/binary/${metadata.md5}/summary`)).json();
      assert.equal(full.host_count, 2);
      assert.deepEqual(full.group, ['Default Group', 'Servers']);
      assert.deepEqual(full.endpoint, [`WIN-ACCT-07|${workstation.id}`, `SRV-DB-01|${servers.id}`]);

      const seen = (await get(`/api/v1/binary/${metadata.md5}/summary`, as(viewerToken))).json();
      assert.equal(seen.host_count, 1);
      assert.deepEqual(seen.group, ['Default Group']);
      assert.deepEqual(seen.endpoint, [`WIN-ACCT-07|${workstation.id}`]);
      assert.deepEqual(seen.observed_filename, ['c:\\shared\\agent.exe']);
      const download = await get(`/api/v1/binary/${metadata.md5}`, as(viewerToken));
      assert.deepEqual(Buffer.from(unzipSync(download.rawPayload).filedata!), content);
    });

    it('answers 404, as for an unknown binary, when no observation is visible', async () => {
      const content = peFile(11);
      const metadata = binaryMetadata(content, { observed_filename: 'E:\\Only\\Here.exe' });
      await upload(servers, metadata, content);
      for (const suffix of ['/summary', '', '/icon']) {
        assert.equal((await get(`/api/v1/binary/${metadata.md5}${suffix}`)).statusCode, 200, `admin ${suffix}`);
        for (const token of [viewerToken, outsiderToken]) {
          const response = await get(`/api/v1/binary/${metadata.md5}${suffix}`, as(token));
          assert.equal(response.statusCode, 404, suffix);
          assert.match(response.body, NOT_FOUND_PAGE);
        }
      }
    });
  });
});
