/**
 * Record queries as data: query text → analyzed predicate → SQLite or PostgreSQL condition and
 * bound parameters, over the alert and threat report column maps. The stores' contract tests run
 * these conditions on real tables; this pins down their shape, and that no value reaches the SQL
 * text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileAlertPredicate } from '../modules/alerts/alert-query.js';
import { compileThreatReportPredicate } from '../modules/threat-reports/threat-report-query.js';
import { analyzeParams } from '../query/index.js';
import type { SqlValue } from './database.js';

const NOW = Date.parse('2026-11-20T10:00:00Z');
const IOC = (type: string, condition: string) => `EXISTS (SELECT 1 FROM report_iocs i WHERE i.report_row = r.id AND i.ioc_type = '${type}' AND ${condition})`;

const ALERT_CASES: [string, string, SqlValue[]][] = [
  ['', 'TRUE', []],
  ['status:unresolved', 'lower(t.status) = ?', ['unresolved']],
  ['status:In_Progress', 'lower(t.status) = ?', ['in progress']],
  ['hostname:web*', "lower(a.hostname) LIKE ? ESCAPE '\\'", ['web%']],
  ['process_name:*ll.exe', "lower(a.process_name) LIKE ? ESCAPE '\\'", ['%ll.exe']],
  ['process_path:system32\\cmd.exe', "(a.process_path_key = ? OR a.process_path_key LIKE ? ESCAPE '\\')", ['system32\\cmd.exe', '%\\\\system32\\\\cmd.exe']],
  ['process_path:temp\\*.exe', "(a.process_path_key LIKE ? ESCAPE '\\' OR a.process_path_key LIKE ? ESCAPE '\\')", ['temp\\\\%.exe', '%\\\\temp\\\\%.exe']],
  ['watchlist_name:100%_sure', 'lower(a.watchlist_name) = ?', ['100%_sure']],
  ['watchlist_name:100%_s*', "lower(a.watchlist_name) LIKE ? ESCAPE '\\'", ['100\\%\\_s%']],
  ['-assigned_to:bob', 'NOT COALESCE(lower(t.assigned_to) = ?, FALSE)', ['bob']],
  ['assigned_to:*', "(t.assigned_to IS NOT NULL AND t.assigned_to <> '')", []],
  ['alert_severity:[50 TO *]', '(a.alert_severity >= ?)', [50]],
  ['created_time:[2026-01-01 TO 2026-02-01]', '(a.created_ms >= ? AND a.created_ms < ?)', [Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-02-02T00:00:00Z')]],
  ['report_ignored:true', 'EXISTS (SELECT 1 FROM threat_reports r WHERE r.id = a.report_row AND r.is_ignored = ?)', [1]],
  [`md5:${'A'.repeat(32)} OR feed_id:3`, '(a.md5 = ? OR (a.feed_id >= ? AND a.feed_id <= ?))', ['a'.repeat(32), 3, 3]],
];

const REPORT_CASES: [string, string, SqlValue[]][] = [
  ['title:"exit node"', 'EXISTS (SELECT 1 FROM json_each(r.title_tokens) t0 JOIN json_each(r.title_tokens) t1 ON t1.key = t0.key + 1 WHERE t0.value = ? AND t1.value = ?)', ['exit', 'node']],
  ['title:cob*t', 'EXISTS (SELECT 1 FROM json_each(r.title_tokens) t0 WHERE t0.value GLOB ?)', ['cob*t']],
  ['tags:"apt* group"', 'EXISTS (SELECT 1 FROM json_each(r.tags_tokens) t0 JOIN json_each(r.tags_tokens) t1 ON t1.key = t0.key + 1 WHERE t0.value = ? AND t1.value = ?)', ['apt', 'group']],
  ['tags:apt?9', 'EXISTS (SELECT 1 FROM json_each(r.tags_tokens) t0 WHERE t0.value GLOB ?)', ['apt?9']],
  ['domain:.com', IOC('dns', "('.' || i.value || '.') LIKE ? ESCAPE '\\'"), ['_%.com.']],
  ['domain:www.', IOC('dns', "('.' || i.value || '.') LIKE ? ESCAPE '\\'"), ['.www._%']],
  ['domain:evil.example', IOC('dns', "('.' || i.value || '.') LIKE ? ESCAPE '\\'"), ['%.evil.example.']],
  ['domain:my_host', IOC('dns', "('.' || i.value || '.') LIKE ? ESCAPE '\\'"), ['%.my\\_host.%']],
  ['ipaddr:10.0.0.0/8', IOC('ipv4', '(i.address_hex >= ? AND i.address_hex <= ?)'), ['0a000000', '0affffff']],
  ['ipv6addr:2001:db8::/32', IOC('ipv6', '(i.address_hex >= ? AND i.address_hex <= ?)'),
    ['20010db8000000000000000000000000', '20010db8ffffffffffffffffffffffff']],
  [`md5:${'A'.repeat(32)}`, IOC('md5', 'i.value = ?'), ['a'.repeat(32)]],
  ['is_ignored:false feed_name:TOR', '(r.is_ignored = ? AND lower(f.name) = ?)', [0, 'tor']],
];

describe('record queries compiled for SQLite', () => {
  for (const [q, sql, params] of ALERT_CASES) {
    it(`alerts: ${q || '(everything)'}`, () => {
      assert.deepEqual(compileAlertPredicate(analyzeParams({ q }, { index: 'alert', now: NOW }).predicate, 'all', 'sqlite'), { sql, params });
    });
  }
  for (const [q, sql, params] of REPORT_CASES) {
    it(`threat reports: ${q}`, () => {
      assert.deepEqual(compileThreatReportPredicate(analyzeParams({ q }, { index: 'threat_report', now: NOW }).predicate, 'sqlite'), { sql, params });
    });
  }

  it('limits alerts to the groups a caller may view, binary alerts (no group) included', () => {
    const predicate = analyzeParams({ q: 'hostname:web1' }, { index: 'alert', now: NOW }).predicate;
    assert.deepEqual(compileAlertPredicate(predicate, [1, 4], 'sqlite'), {
      sql: '(a.group_id IS NULL OR a.group_id IN (?, ?)) AND lower(a.hostname) = ?', params: [1, 4, 'web1'],
    });
    assert.deepEqual(compileAlertPredicate(predicate, [], 'sqlite').sql, '(a.group_id IS NULL) AND lower(a.hostname) = ?');
  });
});

/** Where PostgreSQL's condition differs from SQLite's: case-insensitive LIKE, and JSON token lists. */
const POSTGRES_REPORT_CASES: [string, string, SqlValue[]][] = [
  ['title:"exit node"', 'EXISTS (SELECT 1 FROM jsonb_array_elements_text(r.title_tokens::jsonb) WITH ORDINALITY t0 (value, key) '
    + 'JOIN jsonb_array_elements_text(r.title_tokens::jsonb) WITH ORDINALITY t1 (value, key) ON t1.key = t0.key + 1 WHERE t0.value = ? AND t1.value = ?)', ['exit', 'node']],
  ['tags:apt?9*', "EXISTS (SELECT 1 FROM jsonb_array_elements_text(r.tags_tokens::jsonb) WITH ORDINALITY t0 (value, key) WHERE t0.value LIKE ? ESCAPE '\\')", ['apt_9%']],
  ['domain:.com', IOC('dns', "('.' || i.value || '.') ILIKE ? ESCAPE '\\'"), ['_%.com.']],
];

describe('record queries compiled for PostgreSQL', () => {
  for (const [q, sql, params] of POSTGRES_REPORT_CASES) {
    it(`threat reports: ${q}`, () => {
      assert.deepEqual(compileThreatReportPredicate(analyzeParams({ q }, { index: 'threat_report', now: NOW }).predicate, 'postgres'), { sql, params });
    });
  }

  it('matches alert keywords by prefix without regard to ASCII case, as SQLite does', () => {
    const predicate = analyzeParams({ q: 'hostname:web*' }, { index: 'alert', now: NOW }).predicate;
    assert.deepEqual(compileAlertPredicate(predicate, 'all', 'postgres'), { sql: "lower(a.hostname) ILIKE ? ESCAPE '\\'", params: ['web%'] });
  });
});
