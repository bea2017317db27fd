/**
 * bench/alerts/bulk: bulk alert updates (POST /api/v1/alerts) on a million alerts in the
 * embedded store, as the server runs them (on the alert changes thread): by query over every
 * alert, by query over a host-name prefix (111 of 200 hosts), with set_ignored (which also
 * updates the reports behind the alerts), by 500 ids as cbapi sends them, and a search page for
 * comparison. The database is built in a temp dir (--keep leaves it for a later run with --dir).
 *
 *   node --import tsx bench/alerts/bulk.ts [--alerts 1000000] [--dir /tmp/vigil-alerts-bench] [--keep]
 *
 * Prints one JSON line: milliseconds per operation, alerts changed, the longest stall of this
 * thread's event loop meanwhile (the changes run on the alert changes thread, as in the server),
 * and the database size.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/load.js';
import { openDatabase, SQLITE_FILE } from '../../src/db/open.js';
import { SecretBox } from '../../src/db/secrets/secret-box.js';
import { ThreadedAlertChanges } from '../../src/modules/alerts/alert-changes.threaded.js';
import { insertAlert } from '../../src/modules/alerts/alert-rows.js';
import { SQLITE_ALERT_QUERY } from '../../src/modules/alerts/alert-query.sqlite.js';
import { SqlAlertsStore, type AlertChanges, type AlertSelection } from '../../src/modules/alerts/alerts.store.js';
import { parseFeed } from '../../src/modules/feeds/cbfeed.js';
import { SqlFeedsStore } from '../../src/modules/feeds/feeds.store.js';
import { analyzeParams } from '../../src/query/index.js';

const { values } = parseArgs({
  options: {
    alerts: { type: 'string', default: '1000000' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const total = Number(values.alerts);
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'vigil-alerts-bench-'));
const reused = existsSync(join(dir, SQLITE_FILE));
const db = await openDatabase(loadConfig({ dataDir: dir, logLevel: 'silent' }));
const HOSTS = 200;
const REPORTS = 1000;

if (!reused) {
  const reports = Array.from({ length: REPORTS }, (_, i) => ({
    id: `r${i}`, title: `Report ${i}`, link: `https://intel.example/${i}`, score: 50 + (i % 50), timestamp: 1_700_000_000,
    iocs: { md5: [i.toString(16).padStart(32, '0')] },
  }));
  const feedinfo = { name: 'bench', display_name: 'Bench', provider_url: '', summary: '', tech_data: '' };
  // The feed has no secrets to seal: any key will do.
  await new SqlFeedsStore(db, new SecretBox(randomBytes(32))).create(
    { feedUrl: 'file:///bench.json', enabled: true, useProxy: null, validateServerCert: null, username: null, password: null,
      sslClientCrt: null, sslClientKey: null, localRating: null, order: null },
    parseFeed(JSON.stringify({ feedinfo, reports }), Date.now()), Date.now(),
  );
  const started = performance.now();
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  for (let done = 0; done < total;) {
    const end = Math.min(total, done + 50_000);
    await db.transaction(async (tx) => {
      for (let n = done; n < end; n++) {
        const fromFeed = n % 2 === 0;
        const host = `host-${n % HOSTS}`;
        await insertAlert(tx, {
          uniqueId: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`, alertType: fromFeed ? 'watchlist.hit.ingress.process' : 'watchlist.hit.query.process',
          createdMs: t0 + n * 1000, watchlistId: fromFeed ? `r${n % REPORTS}` : '7', watchlistName: fromFeed ? `Report ${n % REPORTS}` : 'Shells',
          feedId: fromFeed ? 1 : -1, feedName: fromFeed ? 'bench' : 'My Watchlists', reportRow: fromFeed ? 1 + (n % REPORTS) : null,
          reportScore: 75, feedRating: 3, sensorCriticality: 3, iocConfidence: 0.5, alertSeverity: 10 + (n % 90), iocType: fromFeed ? 'md5' : 'query',
          iocValue: 'x', iocAttr: '{}', description: null, link: null, md5: (n % 5000).toString(16).padStart(32, '0'), observedFilename: null,
          totalHosts: 1,
          process: {
            segmentRow: n, processId: `00000001-0000-${(n % 65536).toString(16).padStart(4, '0')}-01dc-5a0b5c2e8000`, segmentId: t0 + n,
            processName: n % 3 === 0 ? 'cmd.exe' : 'powershell.exe', processPath: 'c:\\windows\\system32\\cmd.exe',
            processPathKey: 'c:\\windows\\system32\\cmd.exe', username: 'CORP\\user', sha256: '', hostname: host, groupId: 1,
            groupName: 'default group', sensorId: 1 + (n % HOSTS), osType: 'windows', commsIp: '10.0.0.1', interfaceIp: '10.0.0.1',
            counts: { modload: 1, filemod: 1, regmod: 1, netconn: 1, childproc: 1, crossproc: 1 },
          },
        });
      }
    });
    done = end;
  }
  process.stderr.write(`built ${total} alerts in ${Math.round(performance.now() - started)} ms\n`);
}

// Every run starts from the same state: all alerts Unresolved, no report ignored.
await db.run('UPDATE alert_triage SET status = ?, resolved_ms = NULL, assigned_to = NULL', ['Unresolved']);
await db.run('UPDATE threat_reports SET is_ignored = 0');
const store = new SqlAlertsStore(db, SQLITE_ALERT_QUERY);
// As the server runs them: on the alert changes thread, with its own connection.
const changer = new ThreadedAlertChanges(join(dir, SQLITE_FILE));
const where = (q: string) => analyzeParams({ q }, { index: 'alert', now: Date.now() }).predicate;
const figures: Record<string, number | string | boolean> = { alerts: total, reused_db: reused };

/** Wall time, alerts changed, and the longest the event loop of this (the request) thread stalled. */
async function timed(name: string, selection: AlertSelection, changes: AlertChanges): Promise<void> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const changed = await changer.change(selection, 'all', changes, Date.now());
  figures[`${name}_ms`] = Math.round(performance.now() - started);
  delay.disable();
  figures[`${name}_alerts`] = changed;
  figures[`${name}_max_stall_ms`] = Math.round(delay.max / 1e6);
}

await timed('all_by_query_resolve', { predicate: where('status:unresolved') }, { status: 'Resolved', assignedTo: 'bench' });
await timed('all_by_query_reopen', { predicate: where('status:resolved') }, { status: 'Unresolved', assignedTo: null });
await timed('hostname_prefix', { predicate: where('hostname:host-1*') }, { status: 'In Progress', assignedTo: 'ann' });
await timed('set_ignored_feed_alerts', { predicate: where('feed_name:bench') }, { reportIgnored: true, status: 'False Positive' });
const ids = Array.from({ length: 500 }, (_, i) => `00000000-0000-4000-8000-${(i * 1999).toString(16).padStart(12, '0')}`);
await timed('by_500_ids', { uniqueIds: ids }, { status: 'Resolved' });
const searchStarted = performance.now();
const page = await store.search(where('status:unresolved'), 'all', [{ field: 'created_time', descending: true }], 0, 500);
figures.search_page_500_ms = Math.round(performance.now() - searchStarted);
figures.search_total = page.total;
figures.db_mb = Math.round(statSync(join(dir, SQLITE_FILE)).size / 1e6);
await changer.close();
await db.close();
if (!values.keep) rmSync(dir, { recursive: true, force: true });
else process.stderr.write(`kept ${dir}\n`);
console.log(JSON.stringify(figures));
