/**
 * The console's editing and administration pages in Chromium, against a real HTTPS server
 * serving the built console (npm run build first): a team's group access, watchlists edited,
 * a feed added from a real HTTP server and synchronized, alert facets that refine the search,
 * a file put through live response, and the storage forecast. Every page is checked with axe
 * and screenshotted; no console error and no failed request.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { BUILT_CONSOLE_DIR, consoleBuilt } from '../../src/http/console-static.js';
import { loadOrCreateCertificate } from '../../src/http/tls.js';
import { as, startListeningTestApp, type ListeningTestApp } from '../support/app.js';
import { browserMissing, launchBrowser, loggedInConsole, type WatchedPage } from '../support/browser.js';
import { cbfeed, startFeedServer } from '../support/feeds.js';
import { ANALYST, seedConsoleData, type ConsoleData } from '../support/console-data.js';
import { activeSession, instructionsOfType, type Instruction } from '../support/live-response.js';
import { backdatePartitions } from '../support/partitions.js';
import { checkin } from '../support/sensors.js';
import { tempDir } from '../support/temp.js';

const skip = browserMissing() ?? (consoleBuilt(BUILT_CONSOLE_DIR) ? undefined : 'the console is not built (npm run build)');

describe('the console\'s editing and administration pages in a browser', { skip }, () => {
  let test: ListeningTestApp;
  let browser: Browser;
  let watched: WatchedPage;
  let data: ConsoleData;
  let dir: string;
  const api = (url: string, method: 'GET' | 'POST' | 'PUT' = 'GET', payload?: object) =>
    test.app.inject({ method, url, headers: as(test.adminToken), ...(payload && { payload }) });

  before(async () => {
    dir = tempDir('vigil-console-manage-');
    const tls = await loadOrCreateCertificate(dir, '127.0.0.1');
    test = await startListeningTestApp({}, { tls, consoleDir: BUILT_CONSOLE_DIR });
    data = await seedConsoleData(test, dir);
    browser = await launchBrowser();
    watched = await loggedInConsole(browser, test.url, ANALYST);
  });
  after(async () => {
    await browser?.close();
    await test?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('changes a team\'s access to a sensor group', async () => {
    const { page } = watched;
    const team = (await api('/api/team', 'POST', { name: 'Responders', group_access: [{ group_id: 1, access_category: 'Administrator' }] })).json();
    await page.getByRole('link', { name: 'Administration' }).click();
    const access = page.getByLabel('Responders: access to Default Group');
    assert.equal(await access.inputValue(), 'Administrator');
    await access.selectOption('Viewer');
    await page.getByRole('button', { name: 'Save Responders' }).click();
    await page.getByRole('status').filter({ hasText: 'Team Responders saved.' }).waitFor();
    const saved = (await api(`/api/team/${team.id}`)).json();
    assert.deepEqual(saved.group_access.map((a: { group_id: number; access_category: string }) => [a.group_id, a.access_category]), [[1, 'Viewer']]);
    assert.equal(await page.getByLabel('Responders: access to Default Group').inputValue(), 'Viewer');
    await watched.check('admin-teams');
  });

  it('edits a watchlist: its name, its query and the actions its hits trigger', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'Watchlists' }).click();
    await page.getByRole('button', { name: 'Edit Shells' }).click();
    const form = page.getByRole('form', { name: 'Edit Shells' });
    await form.getByLabel('Raise alerts').waitFor();
    assert.equal(await form.getByLabel('Raise alerts').isChecked(), true);
    await form.getByLabel('Name').fill('Shells and scripts');
    await form.getByLabel('Query').fill('process_name:cmd.exe or process_name:powershell.exe');
    await form.getByLabel('Raise alerts').uncheck();
    await form.getByLabel('Syslog').check();
    await watched.check('watchlist-edit');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Watchlist Shells and scripts saved.' }).waitFor();
    await page.getByRole('link', { name: 'Shells and scripts' }).waitFor();
    const watchlists = (await api('/api/v1/watchlist')).json() as { id: string; name: string; search_query: string }[];
    const edited = watchlists.find((w) => w.name === 'Shells and scripts')!;
    assert.equal(new URLSearchParams(edited.search_query).get('q'), 'process_name:cmd.exe or process_name:powershell.exe');
    const actions = (await api(`/api/v1/watchlist/${edited.id}/action_type`)).json() as { type: string; enabled: boolean }[];
    assert.deepEqual(actions.filter((a) => a.enabled).map((a) => a.type), ['syslog']);
  });

  it('adds a feed from its URL, synchronizes it, and shows its reports with their scores', async () => {
    const { page } = watched;
    const server = await startFeedServer();
    try {
      server.serve(cbfeed('intel', [{ id: 'apt-1', title: 'APT one', score: 75, iocs: { md5: ['a'.repeat(32)] } }]));
      await page.getByRole('link', { name: 'Feeds' }).click();
      await page.getByLabel('Feed URL').fill(server.url);
      await page.getByRole('button', { name: 'Add feed' }).click();
      await page.getByRole('status').filter({ hasText: 'Feed intel feed added.' }).waitFor();
      await page.getByRole('row', { name: /APT one 75/ }).waitFor();
      server.serve(cbfeed('intel', [
        { id: 'apt-1', title: 'APT one', score: 75, iocs: { md5: ['a'.repeat(32)] } },
        { id: 'apt-2', title: 'APT two', score: 20, iocs: { md5: ['b'.repeat(32)] } },
      ]));
      await page.getByRole('button', { name: 'Synchronize intel feed' }).click();
      await page.getByRole('status').filter({ hasText: 'intel feed synchronized.' }).waitFor();
      await page.getByRole('row', { name: /APT two 20/ }).waitFor();
      await watched.check('feeds-added');
      assert.ok(server.requests >= 2);
    } finally {
      await server.close();
    }
  });

  it('refines the alert search with its facets', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'Alerts' }).click();
    await page.getByText(`All ${data.alerts} that match`).waitFor();
    const facets = page.getByRole('complementary', { name: 'Facets' });
    await facets.getByRole('heading', { name: 'Watchlist' }).waitFor();
    await facets.getByRole('button', { name: 'CORP\\mallory' }).click();
    await page.getByText('All 1 that match').waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Query' }).inputValue(), 'username:"CORP\\\\mallory"');
    await page.getByRole('cell', { name: 'WIN-TEST-01' }).waitFor();
    await watched.check('alerts-facets');
  });

  it('puts a file on the host through live response, the command echoed once', async () => {
    const { page } = watched;
    const sessionId = await activeSession(test, data.sensor);
    await page.goto(`${test.url}/#/live/${sessionId}`);
    await page.getByText(/: active$/).waitFor();
    const content = Buffer.from('tool the analyst sends');
    await page.getByLabel('File to put').setInputFiles({ name: 'tool.txt', mimeType: 'text/plain', buffer: content });
    await page.getByLabel('Command').fill('put c:\\temp\\tool.txt');
    await page.getByLabel('Command').press('Enter');
    await page.getByText(/queued as command \d+/).waitFor();
    let delivered: Instruction[] = [];
    while (delivered.length === 0) delivered = (await instructionsOfType(test, data.sensor, 'live_response')).instructions;
    const payload = delivered[0]!.payload as { name: string; object: string; file_id: number };
    assert.deepEqual([payload.name, payload.object], ['put file', 'c:\\temp\\tool.txt']);
    const sent = await api(`/api/v1/cblr/session/${sessionId}/file/${payload.file_id}/content`);
    assert.deepEqual(sent.rawPayload, content);
    await checkin(test, data.sensor, { completed: [{ id: delivered[0]!.id, result: { status: 'complete' } }] });
    await page.locator('.terminal').getByText(/"status": "complete"/).waitFor();
    assert.equal(await page.locator('.terminal .prompt').count(), 1, 'the command is echoed once');
    await watched.check('live-response-put');
  });

  it('shows the storage partitions with the disk forecast', async () => {
    const { page } = watched;
    await backdatePartitions(test, 2 * 86_400_000);
    await page.goto(`${test.url}/#/admin`);
    const forecast = page.getByRole('definition').filter({ hasText: /a day/ });
    await forecast.waitFor();
    assert.match(await forecast.textContent() ?? '', /^\d+\.\d MB a day \(measured over 2 days since \d{4}-\d{2}-\d{2} /);
    assert.match(await page.getByRole('definition').filter({ hasText: /free of/ }).textContent() ?? '', /^\d+\.\d GB free of \d+\.\d GB$/);
    assert.match(await page.getByRole('definition').filter({ hasText: /days$/ }).textContent() ?? '', /^[\d,.]+ days$/);
    await page.getByRole('cell', { name: 'writer' }).waitFor();
    await watched.check('admin-partitions');
  });

  it('saw no console error and no failed request', () => {
    assert.ok(data.alerts > 0);
    assert.deepEqual(watched.problems(), []);
  });
});
