/**
 * The console's speed in Chromium (issue 20 point 10), against a real HTTPS server serving the
 * built console with the browser tests' data (a process with 10,000 events among them):
 *
 * - process search results: from the end of the API's answer to the rows in the page and painted;
 * - the 10,000-event timeline: the same, from the end of the events API's answer;
 * - scrolling the 10,000-row timeline from top to bottom a screenful a frame: frame intervals and
 *   the longest task (the Long Tasks API reports tasks of 50 ms and more);
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
import { ANALYST, BUSY_EVENTS, BUSY_PID, seedConsoleData } from '../../test/support/console-data.js';
import { timeShown, type Shown } from '../../test/support/render-timing.js';
import { tempDir } from '../../test/support/temp.js';

const { values: options } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const RUNS = Number(options.runs);

const goTo = (page: Page, hash: string) => () => page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);

/** Scrolls the timeline a screenful a frame to its end; frame intervals and the longest task seen. */
const SCROLL = `new Promise((resolve) => {
  const view = document.querySelector('.timeline-view');
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
      setTimeout(() => { observer.disconnect(); resolve({ frames, rows: document.querySelectorAll('.event').length, longest: Math.max(0, ...tasks), longTasks: tasks.length }); }, 100);
      return;
    }
    view.scrollTop += view.clientHeight;
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
})`;

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
    const eventsText = `${BUSY_EVENTS.toLocaleString('en-US')} of ${BUSY_EVENTS.toLocaleString('en-US')} events`;
    for (let run = 0; run < RUNS; run++) {
      // A query of its own each run, so the page asks the API again.
      const query = encodeURIComponent(`process_name:cmd.exe -process_pid:${run + 1000}`);
      search.push(await timeShown(page, goTo(page, `#/search?q=${query}`), '.pager', '1–3 of 3', '/api/v1/process?'));
      events.push(await timeShown(page, goTo(page, `#/process/${busy}/0`), 'p.muted', eventsText, '/event'));
    }
    const scroll = await page.evaluate(SCROLL) as { frames: number[]; rows: number; longest: number; longTasks: number };
    const frames = scroll.frames.slice(1);

    console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}, Chromium ${browser.version()}`);
    console.log(`commit: ${execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim()}, ${new Date().toISOString()}`);
    console.log(`load average before: ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(summary('process search results after the API answer', search));
    console.log(summary(`${BUSY_EVENTS}-event timeline after the API answer`, events));
    console.log(`scrolling the ${BUSY_EVENTS}-row timeline a screenful a frame: ${frames.length} frames, interval ${ms(median(frames))} median, `
      + `${ms(percentile(frames, 0.95))} p95, ${ms(Math.max(...frames))} max; ${scroll.longTasks} tasks ≥ 50 ms (longest ${ms(scroll.longest)}); ${scroll.rows} rows in the page at the end`);
    console.log(`first load JavaScript: ${(firstLoadScriptBytes() / 1024).toFixed(1)} KB gzipped (${readdirSync(join(BUILT_CONSOLE_DIR, 'assets')).filter((f) => f.endsWith('.js')).length} script files built)`);
  } finally {
    await browser.close();
    await test.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
