/**
 * The analyst console end to end in Chromium, against a real server over HTTPS serving the built
 * console and the CLI (npm run build first): log in, search with a syntax error then a good query,
 * refine by a facet, open a process, its tree and timeline, ban its hash, isolate a sensor of a
 * running `vigil simulate` and see the sensor confirm it, and prove that planted markup stays text. Every page is checked with axe
 * and screenshotted; no console error and no failed request beyond the expected 400.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Browser } from 'playwright-core';
import { BUILT_CONSOLE_DIR, consoleBuilt } from '../../src/http/console-static.js';
import { loadOrCreateCertificate } from '../../src/http/tls.js';
import { Endpoint } from '../../src/sensor/endpoint.js';
import { as, startListeningTestApp, type ListeningTestApp } from '../support/app.js';
import { browserMissing, launchBrowser, watchedPage, type WatchedPage } from '../support/browser.js';
import { ANALYST, BUSY_EVENTS, BUSY_PID, PLANTED, seedConsoleData, type ConsoleData } from '../support/console-data.js';
import { instructionsOfType, SIMULATED_ATTACH } from '../support/live-response.js';
import { timeShown } from '../support/render-timing.js';
import { checkin } from '../support/sensors.js';
import { tempDir } from '../support/temp.js';
import { BIN } from '../support/vigil-cli.js';

/** The seed of the simulated sensor isolated below: it names the host. */
const SIMULATED_SEED = 'console-isolation';

const skip = browserMissing() ?? (consoleBuilt(BUILT_CONSOLE_DIR) && existsSync(join(dirname(BIN), '../dist/cli/main.js'))
  ? undefined : 'the console or the CLI is not built (npm run build)');

describe('the analyst console in a browser', { skip }, () => {
  let test: ListeningTestApp;
  let browser: Browser;
  let watched: WatchedPage;
  let data: ConsoleData;
  let dir: string;
  let simulator: ChildProcess | undefined;

  before(async () => {
    dir = tempDir('vigil-console-');
    const tls = await loadOrCreateCertificate(dir, '127.0.0.1');
    test = await startListeningTestApp({}, { tls, consoleDir: BUILT_CONSOLE_DIR });
    data = await seedConsoleData(test, dir);
    browser = await launchBrowser();
    watched = await watchedPage(browser);
    // Generous: a whole test run shares the machine's cores with this browser.
    watched.page.setDefaultTimeout(30_000);
  });
  after(async () => {
    simulator?.kill();
    await browser?.close();
    await test?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in with a username and password', async () => {
    const { page } = watched;
    await page.goto(`${test.url}/`);
    await watched.check('login');
    await page.getByLabel('Username').fill(ANALYST.username);
    await page.getByLabel('Password').fill(ANALYST.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Process search' }).waitFor();
    await page.getByText(ANALYST.username, { exact: true }).waitFor();
  });

  it('marks a syntax error at its position, then runs a good query', async (t: TestContext) => {
    const { page } = watched;
    watched.expect(400, /\/api\/v1\/process\?/);
    const box = page.getByRole('combobox', { name: 'Query' });
    await box.fill('cmdline:x proc');
    const offered = await page.locator('#process-query-fields option').evaluateAll((options) => options.map((o) => o.getAttribute('value')));
    assert.deepEqual(offered, ['cmdline:x process_name:', 'cmdline:x process_md5:', 'cmdline:x process_sha256:', 'cmdline:x process_id:', 'cmdline:x process_pid:']);
    await box.fill('process_name:(cmd.exe');
    await box.press('Enter');
    const caret = page.locator('pre.caret');
    await caret.waitFor();
    assert.equal(await caret.textContent(), `process_name:(cmd.exe\n${' '.repeat(13)}^`);
    await watched.check('search-syntax-error');

    await box.fill('process_name:cmd.exe');
    const shown = await timeShown(page, () => box.press('Enter'), '.pager', '1–3 of 3', '/api/v1/process?');
    t.diagnostic(`results painted ${Math.round(shown.painted)} ms after the API's answer`);
    assert.match(page.url(), /#\/search\?q=process_name%3Acmd\.exe/);
    await watched.check('search-results');
  });

  it('refines the search with a facet', async () => {
    const { page } = watched;
    await page.getByRole('region', { name: 'Facets' }).or(page.locator('aside.facets'))
      .getByRole('button', { name: 'CORP\\mallory' }).click();
    await page.getByText('1–1 of 1').waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Query' }).inputValue(), 'process_name:cmd.exe username:"CORP\\\\mallory"');
    await page.goBack();
    await page.getByText('1–3 of 3').waitFor();
    await page.getByRole('button', { name: '2026-11-20T00:00:00Z' }).click();
    await page.waitForURL(/start%3A%5B2026-11-20T00%3A00%3A00/);
    await page.getByText('1–3 of 3').waitFor();
    await page.goBack();
    await page.getByLabel('New watchlist from this search').fill('Every cmd.exe');
    await page.getByRole('button', { name: 'Create watchlist' }).click();
    await page.getByRole('status').filter({ hasText: /Watchlist \d+ created/ }).waitFor();
  });

  it('moves through results with the keyboard and stays usable at phone width', async () => {
    const { page } = watched;
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await page.keyboard.press('j');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'cmd.exe');
    await page.keyboard.press('/');
    assert.equal(await page.evaluate('document.activeElement?.name'), 'q');
    await page.setViewportSize({ width: 390, height: 800 });
    await watched.check('search-phone');
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1'), 'no sideways scrolling at phone width');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('opens a process: its tree with lazily loaded children, its binary and its timeline', async () => {
    const { page } = watched;
    await page.getByRole('combobox', { name: 'Query' }).fill('process_pid:100');
    await page.getByRole('combobox', { name: 'Query' }).press('Enter');
    await page.getByText('1–1 of 1').waitFor();
    await page.getByRole('link', { name: 'cmd.exe' }).click();
    await page.getByRole('heading', { name: 'Process tree' }).waitFor();
    await page.getByRole('button', { name: 'Expand cmd.exe' }).click();
    await page.getByText('No children').waitFor();
    await page.getByText('Microsoft Corporation').or(page.getByRole('button', { name: 'Download binary' })).first().waitFor();
    await page.getByText('6 of 6 events').waitFor();
    await page.getByLabel('File').uncheck();
    await page.getByText('5 of 6 events').waitFor();
    await page.getByLabel('Text').fill('lsass');
    await page.getByText('1 of 6 events').waitFor();
    await watched.check('process');
  });

  it('bans the process\'s hash', async () => {
    const { page } = watched;
    await page.getByRole('button', { name: 'Ban this hash' }).click();
    await page.getByRole('status').filter({ hasText: 'Banned' }).waitFor();
    const ban = await test.app.inject({ url: `/api/v1/banning/blacklist/${data.md5}`, headers: as(test.adminToken) });
    assert.equal(ban.statusCode, 200, ban.body);
  });

  it('isolates a sensor of a running `vigil simulate` and shows the state honestly until the sensor confirms it', async () => {
    const { page } = watched;
    // The compiled CLI, as an administrator runs it: one sensor, a trickle of events, quick check-ins.
    simulator = spawn(process.execPath, [
      BIN, 'simulate', '--server', test.url, '--token', test.adminToken, '--seed', SIMULATED_SEED,
      '--sensors', '1', '--duration', '120', '--rate', '1', '--checkin-interval', '0.5',
    ], { stdio: 'ignore' });
    const hostname = new Endpoint({ seed: SIMULATED_SEED, index: 0, startMs: 0 }).facts.computer_name;
    await page.getByRole('link', { name: 'Sensors' }).click();
    await page.getByRole('button', { name: `Isolate ${hostname}` }).click();
    await page.getByText('isolation requested, waiting for the sensor').waitFor();
    await page.getByText('isolated (confirmed)').waitFor();
    assert.equal(await page.getByRole('alert').count(), 0, 'no error shown');
    await watched.check('sensors');
    simulator.kill();
  });

  it('opens a live response session and shows a command\'s output when the sensor answers', async () => {
    const { page } = watched;
    await page.goto(`${test.url}/#/search?q=process_pid%3A100`);
    await page.getByRole('link', { name: 'cmd.exe' }).click();
    await page.getByRole('button', { name: 'Open live response' }).click();
    await page.getByRole('heading', { name: /Live response session \d+/ }).waitFor();
    const { instructions } = await instructionsOfType(test, data.sensor, 'live_response_session');
    await checkin(test, data.sensor, { completed: [{ id: instructions[0]!.id, result: SIMULATED_ATTACH }] });
    await page.getByText(/: active$/).waitFor();
    await page.getByLabel('Command').fill('ps');
    await page.getByLabel('Command').press('Enter');
    await page.getByText(/queued as command \d+/).waitFor();
    let delivered: Awaited<ReturnType<typeof instructionsOfType>>['instructions'] = [];
    while (delivered.length === 0) delivered = (await instructionsOfType(test, data.sensor, 'live_response')).instructions;
    const processes = [{ pid: 612, parent: 4, path: 'c:\\windows\\system32\\smss.exe', command_line: 'smss.exe', create_time: 1_700_000_001 }];
    await checkin(test, data.sensor, { completed: [{ id: delivered[0]!.id, result: { status: 'complete', processes } }] });
    await page.locator('.terminal').getByText(/smss\.exe/).first().waitFor();
    await watched.check('live-response');
  });

  it('resolves every alert that matches a search in one bulk change', async () => {
    const { page } = watched;
    assert.ok(data.alerts > 0);
    await page.getByRole('link', { name: 'Alerts' }).click();
    await page.getByText(`All ${data.alerts} that match`).click();
    await page.getByLabel('Status').selectOption('Resolved');
    await page.getByRole('button', { name: 'Set status' }).click();
    await page.getByRole('status').filter({ hasText: `Set to Resolved: ${data.alerts} alerts.` }).waitFor();
    await watched.check('alerts');
    const alerts = (await test.app.inject({ url: '/api/v1/alert?rows=100', headers: as(test.adminToken) })).json().results as { status: string }[];
    assert.deepEqual([...new Set(alerts.map((a) => a.status))], ['Resolved']);
  });

  it('shows watchlists with their hits, and the administration pages to a global admin', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'Watchlists' }).click();
    await page.getByRole('link', { name: 'Shells' }).waitFor();
    await page.getByRole('link', { name: 'Every cmd.exe' }).waitFor();
    await watched.check('watchlists');
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.getByRole('cell', { name: ANALYST.username, exact: true }).waitFor();
    await page.getByRole('cell', { name: data.md5, exact: true }).waitFor();
    await page.getByRole('button', { name: 'Show install code of default group' }).click();
    await page.getByRole('cell', { name: /^[0-9a-f-]{20,}$/i }).first().waitFor();
    await watched.check('admin');
  });

  it('scrolls a timeline of 10,000 events with only the rows in view in the page', async (t: TestContext) => {
    const { page } = watched;
    // The server never received busy.exe's binary: its summary is a 404, which the page explains.
    watched.expect(404, /\/api\/v1\/binary\/e{32}\/summary$/);
    await page.goto(`${test.url}/#/search?q=process_pid%3A${BUSY_PID}`);
    const all = `${BUSY_EVENTS.toLocaleString('en-US')} of ${BUSY_EVENTS.toLocaleString('en-US')} events`;
    const shown = await timeShown(page, () => page.getByRole('link', { name: 'busy.exe' }).click(), 'p.muted', all, '/event');
    t.diagnostic(`${BUSY_EVENTS} events painted ${Math.round(shown.painted)} ms after the API's answer`);
    assert.ok(await page.locator('.event').count() < 100, 'rows outside the view are not rendered');
    await page.locator('.timeline-view').evaluate((view) => { view.scrollTop = view.scrollHeight; });
    await page.getByText('created c:\\temp\\f-09999.txt').waitFor();
    await page.getByText('The server has no record of this binary yet.').waitFor();
    assert.ok(await page.locator('.event').count() < 100);
  });

  it('renders planted markup in a command line, a filename and a report title as text', async () => {
    const { page } = watched;
    await page.goto(`${test.url}/#/search?q=process_pid%3A300`);
    await page.getByText(PLANTED.cmdline).first().waitFor();
    await page.getByRole('link', { name: 'cmd.exe' }).click();
    await page.getByText(PLANTED.cmdline).first().waitFor();
    await page.getByText(`created ${PLANTED.filename}`).waitFor();
    await page.getByRole('link', { name: 'Feeds' }).click();
    await page.getByText(PLANTED.reportTitle).waitFor();
    await watched.check('feeds');
    assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('main img, main script, main b').count(), 0);
  });

  it('logs out, ending the session, then logs in with a pasted API token', async () => {
    const { page } = watched;
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    watched.expect(401, /\/api\/auth\/session$/);
    const session = await page.evaluate(async () => (await fetch('/api/auth/session')).status);
    assert.equal(session, 401, 'the cookie no longer opens the API');
    await page.getByLabel('API token').fill(test.adminToken);
    await page.getByRole('button', { name: 'Use token' }).click();
    // Back on the page the hash names: where the analyst was.
    await page.getByRole('heading', { name: 'Feeds' }).waitFor();
    await page.getByText('admin', { exact: true }).waitFor();
  });

  it('saw no console error and no failed request', () => {
    assert.deepEqual(watched.problems(), []);
  });
});
