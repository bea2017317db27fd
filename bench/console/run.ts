/**
 * The console's speed in Chromium (issue 20 point 10), against a real HTTPS server serving the
 * built console with the browser tests' data (a process with 10,000 events among them):
 *
 * - process search results: from the end of the API's answer to the rows in the page and painted;
 * - the 10,000-event timeline: the same, from the end of the events API's answer;
 * - scrolling the 10,000-row timeline from top to bottom a screenful a frame: frame intervals and
 *   the longest task (the Long Tasks API reports tasks of 50 ms and more);
 * - the sensors page with a fleet of 10,000 (registered through the registration API, 50 at a
 *   time, beside the browser tests' one sensor): the same, from the end of the sensor list's answer;
 *   scrolling it to its end the same way; and the longest task while it refreshes twice (every 5 s);
 * - the first load's JavaScript, gzipped.
 *
 * Timings are taken inside the page (test/support/render-timing.ts), so the test driver's round
 * trips are not counted.
 *
 * Run: npm run build && node --import tsx bench/console/run.ts [--runs 10]
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { BUILT_CONSOLE_DIR, consoleBuilt } from '../../src/http/console-static.js';
import { loadOrCreateCertificate } from '../../src/http/tls.js';
import { as, startListeningTestApp } from '../../test/support/app.js';
import { browserMissing, launchBrowser } from '../../test/support/browser.js';
import { registerFleet } from '../../test/support/sensors.js';
import { ANALYST, BUSY_EVENTS, BUSY_PID, seedConsoleData } from '../../test/support/console-data.js';
import { timeShown, type Shown } from '../../test/support/render-timing.js';
import { tempDir } from '../../test/support/temp.js';

const { values: options } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const RUNS = Number(options.runs);

const FLEET = 10_000;

const goTo = (page: Page, hash: string) => () => page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);

/** Scrolls a list's view a screenful a frame to its end; frame intervals and the longest task seen. */
const scrollToEnd = (viewSelector: string, rowSelector: string) => `new Promise((resolve) => {
  const view = document.querySelector(${JSON.stringify(viewSelector)});
  const tasks = [];
  const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries().map((e) => e.duration)));
  observer.observe({ type: 'longtask' });
  const frames = [];
  let last = performance.now();
  const step = () => {
    const now = performance.now();
    frames.push(now - last);
    last = now;
    if (view.scrollTop + view.clientHeight >= view.scrollHeight) {
      setTimeout(() => { observer.disconnect(); resolve({ frames, rows: document.querySelectorAll(${JSON.stringify(rowSelector)}).length, longest: Math.max(0, ...tasks), longTasks: tasks.length }); }, 100);
      return;
    }
    view.scrollTop += view.clientHeight;
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
})`;

/** The tasks of 50 ms and more while the page sits still for `ms` (the sensors page refreshing). */
const longTasksFor = (ms: number) => `new Promise((resolve) => {
  const tasks = [];
  const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries().map((e) => e.duration)));
  observer.observe({ type: 'longtask' });
  setTimeout(() => { observer.disconnect(); resolve(tasks); }, ${ms});
})`;

interface Scrolled { frames: number[]; rows: number; longest: number; longTasks: number }
const scrollSummary = (label: string, scroll: Scrolled) => {
  const frames = scroll.frames.slice(1);
  return `scrolling the ${label} a screenful a frame: ${frames.length} frames, interval ${ms(median(frames))} median, `
    + `${ms(percentile(frames, 0.95))} p95, ${ms(Math.max(...frames))} max; ${scroll.longTasks} tasks ≥ 50 ms (longest ${ms(scroll.longest)}); ${scroll.rows} rows in the page at the end`;
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;
const summary = (label: string, runs: Shown[]) =>
  `${label}: DOM ${ms(median(runs.map((r) => r.dom)))} median, ${ms(Math.max(...runs.map((r) => r.dom)))} max; `
  + `painted ${ms(median(runs.map((r) => r.painted)))} median, ${ms(Math.max(...runs.map((r) => r.painted)))} max (${runs.length} runs)`;

function firstLoadScriptBytes(): number {
  const html = readFileSync(join(BUILT_CONSOLE_DIR, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  return scripts.reduce((sum, path) => sum + gzipSync(readFileSync(join(BUILT_CONSOLE_DIR, path)), { level: 9 }).length, 0);
}

async function main(): Promise<void> {
  const missing = browserMissing() ?? (consoleBuilt(BUILT_CONSOLE_DIR) ? undefined : 'the console is not built (npm run build)');
  if (missing) throw new Error(missing);
  const loadBefore = loadavg();
  const dir = tempDir('vigil-bench-console-');
  const tls = await loadOrCreateCertificate(dir, '127.0.0.1');
  const test = await startListeningTestApp({}, { tls, consoleDir: BUILT_CONSOLE_DIR });
  const browser = await launchBrowser();
  try {
    await seedConsoleData(test, dir);
    const seeding = Date.now();
    await registerFleet(test, FLEET, 'FLEET');
    const seeded = Date.now() - seeding;
    const busy = (await test.app.inject({ url: `/api/v1/process?q=process_pid:${BUSY_PID}`, headers: as(test.adminToken) })).json().results[0].id as string;
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${test.url}/`);
    await page.getByLabel('Username').fill(ANALYST.username);
    await page.getByLabel('Password').fill(ANALYST.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Process search' }).waitFor();

    const search: Shown[] = [];
    const events: Shown[] = [];
    const sensors: Shown[] = [];
    const eventsText = `${BUSY_EVENTS.toLocaleString('en-US')} of ${BUSY_EVENTS.toLocaleString('en-US')} events`;
    for (let run = 0; run < RUNS; run++) {
      // A query of its own each run, so the page asks the API again.
      const query = encodeURIComponent(`process_name:cmd.exe -process_pid:${run + 1000}`);
      search.push(await timeShown(page, goTo(page, `#/search?q=${query}`), '.pager', '1–3 of 3', '/api/v1/process?'));
      events.push(await timeShown(page, goTo(page, `#/process/${busy}/0`), 'p.muted', eventsText, '/event'));
    }
    const timeline = await page.evaluate(scrollToEnd('.timeline-view', '.event')) as Scrolled;
    for (let run = 0; run < RUNS; run++) {
      await goTo(page, '#/search')();
      sensors.push(await timeShown(page, goTo(page, '#/sensors'), '.virtual-view', 'FLEET-00001', '/api/v1/sensor'));
    }
    const fleet = await page.evaluate(scrollToEnd('.virtual-view', '.virtual-view tbody tr:not(.spacer)')) as Scrolled;
    const refreshTasks = await page.evaluate(longTasksFor(11_000)) as number[];

    console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}, Chromium ${browser.version()}`);
    console.log(`commit: ${execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim()}, ${new Date().toISOString()}`);
    console.log(`load average before: ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(summary('process search results after the API answer', search));
    console.log(summary(`${BUSY_EVENTS}-event timeline after the API answer`, events));
    console.log(scrollSummary(`${BUSY_EVENTS}-row timeline`, timeline));
    console.log(`${FLEET} sensors registered in ${(seeded / 1000).toFixed(1)} s (registration API, 50 in flight)`);
    console.log(summary(`sensors page (${FLEET + 1} sensors) after the sensor list's answer`, sensors));
    console.log(scrollSummary(`${FLEET + 1}-sensor list`, fleet));
    console.log(`sensors page sitting through two 5 s refreshes: ${refreshTasks.length} tasks ≥ 50 ms (longest ${ms(Math.max(0, ...refreshTasks))})`);
    console.log(`first load JavaScript: ${(firstLoadScriptBytes() / 1024).toFixed(1)} KB gzipped (${readdirSync(join(BUILT_CONSOLE_DIR, 'assets')).filter((f) => f.endsWith('.js')).length} script files built)`);
  } finally {
    await browser.close();
    await test.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
