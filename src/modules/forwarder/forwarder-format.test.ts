/** The LEEF and JSON forms of records, as cb-event-forwarder's encoder writes them. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { encodeLeef, encodeRecord } from './forwarder-format.js';

it('writes a LEEF 1.0 header from the record type and its keys sorted, escaped and tab-separated', () => {
  const leef = encodeLeef({ type: 'ingress.event.filemod', path: 'c:\\a=b\tc', sensor_id: 7, tamper: false, cb_version: '7.8.0' });
  assert.equal(leef, 'LEEF:1.0|CB|CB|7.8.0|ingress.event.filemod|cb_version=7.8.0\tpath=c:\\\\a\\=b\\tc\tsensor_id=7\ttamper=false\ttype=ingress.event.filemod');
});

it('names procstart "process" in the header, as the QRadar DSM expects', () => {
  assert.match(encodeLeef({ type: 'ingress.event.procstart' }), /^LEEF:1\.0\|CB\|CB\|5\.1\|ingress\.event\.process\|/);
});

it('adds QRadar\'s src, dst and ports to netconns by their direction, and to feed hits from ioc_attr', () => {
  const outbound = encodeLeef({ type: 'ingress.event.netconn', direction: 'outbound', local_ip: '10.0.0.1', local_port: 5000, remote_ip: '1.2.3.4', remote_port: 443, protocol: 6 });
  assert.match(outbound, /\tdst=1\.2\.3\.4\tdstPort=443\t/);
  assert.match(outbound, /\tsrc=10\.0\.0\.1\tsrcPort=5000\t/);
  assert.match(outbound, /\tproto=6\t/);
  const inbound = encodeLeef({ type: 'ingress.event.netconn', direction: 'inbound', local_ip: '10.0.0.1', remote_ip: '1.2.3.4' });
  assert.match(inbound, /\tdst=10\.0\.0\.1\t/);
  assert.match(inbound, /\tsrc=1\.2\.3\.4\t/);
  const feedHit = encodeLeef({ type: 'feed.ingress.hit.process', ioc_attr: { direction: 'outbound', remote_ip: '5.6.7.8' } });
  assert.match(feedHit, /\|dst=5\.6\.7\.8\t/);
  assert.match(feedHit, /ioc_attr=\{"direction":"outbound","remote_ip":"5\.6\.7\.8"\}/);
});

it('promotes the one document of a hit to the top, and writes empty objects as nothing', () => {
  const leef = encodeLeef({ type: 'watchlist.hit.process', watchlist_id: 3, docs: [{ process_name: 'cmd.exe', unique_id: 'u-1' }], scores: {} });
  assert.equal(leef, 'LEEF:1.0|CB|CB|5.1|watchlist.hit.process|process_name=cmd.exe\tscores=\ttype=watchlist.hit.process\tunique_id=u-1\twatchlist_id=3');
});

it('writes JSON records as they are, one object each', () => {
  assert.equal(encodeRecord({ type: 'binaryinfo.observed', md5: 'AB' }, 'json'), '{"type":"binaryinfo.observed","md5":"AB"}');
});
