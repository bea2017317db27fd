/** The cbfeeds format: what is accepted, how IOC values are normalized, and what is refused with which message. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cbfeed } from '../../../test/support/feeds.js';
import { FeedFormatError, parseFeed } from './cbfeed.js';

const NOW = Date.parse('2026-11-20T10:00:00Z');
const parse = (document: unknown) => parseFeed(JSON.stringify(document), NOW);

describe('cbfeeds documents', () => {
  it('reads feedinfo and reports, normalizing IOC values as events are', () => {
    const feed = parse(cbfeed('tor', [
      { id: 'TOR-1', title: 'Exit node', iocs: { ipv4: ['100.2.142.8'], dns: ['Bad.Example.COM.'], md5: ['AD7B9C14083B52BC532FBA5948342B98'] } },
      { id: 'v6', title: 'IPv6', score: -10, tags: ['tor', 'exit_1'], iocs: { ipv6: ['2001:DB8:0:0:0:0:0:1'] } },
    ], { category: 'Open Source' }));
    assert.deepEqual(feed.feedinfo, {
      name: 'tor', display_name: 'tor feed', provider_url: 'https://intel.example', summary: 'Indicators from tor',
      tech_data: 'There are no requirements to share any data to receive this feed.', category: 'Open Source', icon: '', icon_small: '',
      provider_rating: 3,
    });
    const [first, second] = feed.reports;
    assert.deepEqual(first?.values, [
      { type: 'ipv4', value: '100.2.142.8', addressHex: '64028e08' },
      { type: 'dns', value: 'bad.example.com' },
      { type: 'md5', value: 'ad7b9c14083b52bc532fba5948342b98' },
    ]);
    assert.deepEqual([first?.description, first?.tags, first?.link], ['', [], 'https://intel.example/TOR-1']);
    assert.deepEqual(second?.values, [{ type: 'ipv6', value: '2001:db8::1', addressHex: '20010db8000000000000000000000001' }]);
    assert.deepEqual([second?.score, second?.tags], [-10, ['tor', 'exit_1']]);
  });

  it('takes a query IOC as one object or a list of them, checking the query', () => {
    const query = { index_type: 'events', search_query: 'cb.urlver=1&q=process_name%3Anotepad.exe' };
    for (const iocs of [{ query }, { query: [query] }]) {
      assert.deepEqual(parse(cbfeed('q', [{ id: 'r', title: 't', iocs }])).reports[0]?.queries, [query]);
    }
  });

  it('keeps IOC kinds it does not know for display, and matches none of them', () => {
    const report = parse(cbfeed('n', [{ id: 'r', title: 't', iocs: { md5: ['a'.repeat(32)], url: ['http://x'] } }])).reports[0]!;
    assert.deepEqual(report.values.map((v) => v.type), ['md5']);
    assert.deepEqual(Object.keys(report.iocs), ['md5', 'url']);
  });

  const refused: [string, unknown, RegExp][] = [
    ['not JSON', '{"feedinfo":', /not valid JSON/],
    ['no reports', { feedinfo: cbfeed('x', []).feedinfo }, /reports/],
    ['a name with punctuation', cbfeed('my-feed', []), /feedinfo\/name/],
    ['no display_name', { ...cbfeed('x', []), feedinfo: { name: 'x', provider_url: '', summary: '', tech_data: '' } }, /display_name/],
    ['a bad report id', cbfeed('x', [{ id: 'a b', title: 't', iocs: { md5: ['a'.repeat(32)] } }]), /reports\/0\/id/],
    ['a score out of range', cbfeed('x', [{ id: 'r', title: 't', score: 101, iocs: { md5: ['a'.repeat(32)] } }]), /score/],
    ['a fractional timestamp', cbfeed('x', [{ id: 'r', title: 't', timestamp: 1.5, iocs: { md5: ['a'.repeat(32)] } }]), /timestamp/],
    ['no iocs', cbfeed('x', [{ id: 'r', title: 't', iocs: {} }]), /iocs holds none/],
    ['a short md5', cbfeed('x', [{ id: 'r', title: 't', iocs: { md5: ['abc'] } }]), /"abc" is not a valid md5/],
    ['a bad address', cbfeed('x', [{ id: 'r', title: 't', iocs: { ipv4: ['300.1.1.1'] } }]), /not a valid ipv4/],
    ['a list that is not one', cbfeed('x', [{ id: 'r', title: 't', iocs: { dns: 'a.com' } }]), /list of strings/],
    ['a duplicate report id', cbfeed('x', [{ id: 'r', title: 't', iocs: { md5: ['a'.repeat(32)] } }, { id: 'r', title: 'u', iocs: { md5: ['b'.repeat(32)] } }]), /appears twice/],
    ['a query with other IOCs', cbfeed('x', [{ id: 'r', title: 't', iocs: { query: { index_type: 'events', search_query: 'q=a' }, md5: ['a'.repeat(32)] } }]), /no other IOC/],
    ['a query without q=', cbfeed('x', [{ id: 'r', title: 't', iocs: { query: { index_type: 'events', search_query: 'process_name:a' } } }]), /q= or cb\.q\./],
    ['an unknown index', cbfeed('x', [{ id: 'r', title: 't', iocs: { query: { index_type: 'processes', search_query: 'q=a' } } }]), /index_type/],
    ['a query that cannot be read', cbfeed('x', [{ id: 'r', title: 't', iocs: { query: { index_type: 'events', search_query: 'q=%28a' } } }]), /cannot be read/],
  ];
  for (const [what, document, message] of refused) {
    it(`refuses ${what}`, () => {
      assert.throws(() => parseFeed(typeof document === 'string' ? document : JSON.stringify(document), NOW), (error: unknown) => {
        assert.ok(error instanceof FeedFormatError);
        assert.match(error.message, message);
        return true;
      });
    });
  }
});
