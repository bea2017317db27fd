/**
 * The sensors page with a fleet of 10,000 (issue 22's target) in Chromium, against a real HTTPS
 * server serving the built console (npm run build first): only the rows in view are in the page,
 * scrolling to the end shows the last sensor, a refresh redraws only the sensor that changed, and
 * the page stays axe-clean.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { BUILT_CONSOLE_DIR, consoleBuilt } from '../../src/http/console-static.js';
import { loadOrCreateCertificate } from '../../src/http/tls.js';
import { as, createUser, startListeningTestApp, type ListeningTestApp } from '../support/app.js';
import { browserMissing, launchBrowser, loggedInConsole, type WatchedPage } from '../support/browser.js';
import { ANALYST } from '../support/console-data.js';
import { registerFleet } from '../support/sensors.js';
import { tempDir } from '../support/temp.js';

const skip = browserMissing() ?? (consoleBuilt(BUILT_CONSOLE_DIR) ? undefined : 'the console is not built (npm run build)');
const FLEET = 10_000;
/** A few screenfuls plus overscan; 10,000 rows in the page would be the list unvirtualized. */
const MAX_ROWS_IN_PAGE = 300;

describe('the sensors page with 10,000 sensors in a browser', { skip }, () => {
  let test: ListeningTestApp;
  let browser: Browser;
  let watched: WatchedPage;
  let dir: string;

  before(async () => {
    dir = tempDir('vigil-console-fleet-');
    const tls = await loadOrCreateCertificate(dir, '127.0.0.1');
    test = await startListeningTestApp({}, { tls, consoleDir: BUILT_CONSOLE_DIR });
    await createUser(test, { username: ANALYST.username, password: ANALYST.password, global_admin: true });
    await registerFleet(test, FLEET, 'FLEET');
    browser = await launchBrowser();
    watched = await loggedInConsole(browser, test.url, ANALYST);
    const { page } = watched;
    await page.getByRole('link', { name: 'Sensors' }).click();
    await page.getByRole('cell', { name: 'FLEET-00001', exact: true }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await test?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Records the host of every row drawn now that later changes in any way (text, attributes, children). */
  const WATCH_ROWS = `(() => {
    const rows = [...document.querySelectorAll('.virtual-view tbody tr:not(.spacer)')];
    window.changedHosts = [];
    new MutationObserver((records) => {
      for (const r of records) {
        const row = (r.target instanceof Element ? r.target : r.target.parentElement)?.closest('tr');
        if (row && rows.includes(row)) window.changedHosts.push(row.querySelector('td').textContent);
      }
    }).observe(document.querySelector('.virtual-view tbody'), { subtree: true, childList: true, characterData: true, attributes: true });
  })()`;
  const rowsInPage = () => watched.page.locator('.virtual-view tbody tr:not(.spacer)').count();

  it('keeps only a few hundred rows in the page and shows the last sensor at the end', async () => {
    const { page } = watched;
    assert.ok(await rowsInPage() <= MAX_ROWS_IN_PAGE, `${await rowsInPage()} rows in the page at the top`);
    await page.getByRole('region', { name: 'Sensors' }).evaluate((view) => { view.scrollTop = view.scrollHeight; });
    const last = page.getByRole('cell', { name: `FLEET-${String(FLEET).padStart(5, '0')}`, exact: true });
    await last.waitFor();
    assert.ok(await last.isVisible(), 'the last sensor is in view');
    assert.ok(await rowsInPage() <= MAX_ROWS_IN_PAGE, `${await rowsInPage()} rows in the page at the end`);
    assert.equal(await page.getByRole('cell', { name: 'FLEET-00001', exact: true }).count(), 0, 'the first sensor left the page');
    await watched.check('sensors-fleet');
  });

  it('reaches a row beyond the rows first drawn with the keyboard', async () => {
    const { page } = watched;
    const view = page.getByRole('region', { name: 'Sensors' });
    await view.evaluate((v) => { v.scrollTop = 0; });
    await page.getByRole('cell', { name: 'FLEET-00001', exact: true }).waitFor();
    await page.getByLabel('Group of FLEET-00001').focus();
    // Two stops a row (its group list, its isolate button), past the rows drawn at first (a screenful and the overscan).
    for (let i = 0; i < 80; i++) await page.keyboard.press('Tab');
    const focused = await page.evaluate('document.activeElement?.getAttribute("aria-label")');
    assert.equal(focused, 'Group of FLEET-00041');
    assert.ok(await page.getByLabel('Group of FLEET-00041').isVisible(), 'the focused row was scrolled into view');
  });

  it('redraws on refresh the row whose sensor changed and leaves the others alone', async () => {
    const { page } = watched;
    await page.getByRole('region', { name: 'Sensors' }).evaluate((v) => { v.scrollTop = 0; });
    await page.getByRole('cell', { name: 'FLEET-00002', exact: true }).waitFor();
    await page.evaluate(WATCH_ROWS);
    const sensors = (await test.app.inject({ url: '/api/v1/sensor', headers: as(test.adminToken) })).json() as { id: number; computer_name: string }[];
    const second = sensors.find((s) => s.computer_name === 'FLEET-00002')!;
    const put = await test.app.inject({ method: 'PUT', url: `/api/v1/sensor/${second.id}`, headers: as(test.adminToken), payload: { network_isolation_enabled: true } });
    assert.equal(put.statusCode, 204, put.body);
    await page.getByRole('button', { name: 'Restore FLEET-00002' }).waitFor();
    const changed = await page.evaluate('window.changedHosts') as string[];
    assert.deepEqual([...new Set(changed)], ['FLEET-00002']);
    assert.deepEqual(watched.problems(), []);
  });
});
