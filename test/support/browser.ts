/**
 * The console in a real browser: Debian's Chromium (/usr/bin/chromium) driven by playwright-core,
 * which downloads no browser of its own. A page records every console error, script error and
 * failed request; `check` runs axe-core on it and keeps a screenshot in test-output/console.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.VIGIL_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(process.cwd(), 'test-output', 'console');

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}

export interface WatchedPage {
  page: Page;
  /** Console errors, page errors and failed requests seen so far, less those declared expected. */
  problems(): string[];
  /** A response with this status for a URL matching this pattern is part of the test, not a problem. */
  expect(status: number, url: RegExp): void;
  /** Screenshot, then axe: fails on serious or critical violations. */
  check(name: string): Promise<void>;
}

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

export async function watchedPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<WatchedPage> {
  // The server's certificate is the self-signed one a fresh `vigil serve` makes.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
  const page = await context.newPage();
  const seen: string[] = [];
  const expected: { status: number; url: RegExp }[] = [];
  const isExpected = (status: number, url: string) => expected.some((e) => e.status === status && e.url.test(url));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Chromium also logs each 4xx as a console error; the responses themselves are judged below.
    const location = message.location().url;
    if (/^Failed to load resource: the server responded with a status of (\d+)/.test(message.text())) {
      const status = Number(/status of (\d+)/.exec(message.text())![1]);
      if (isExpected(status, location)) return;
    }
    seen.push(`console: ${message.text()} (${location})`);
  });
  page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => seen.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
  page.on('response', (response) => {
    if (response.status() >= 400 && !isExpected(response.status(), response.url())) seen.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    page,
    problems: () => [...seen],
    expect: (status, url) => expected.push({ status, url }),
    async check(name) {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
      // Evaluated through the DevTools protocol, which the page's CSP does not govern.
      await page.evaluate(axeSource);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run: (o: object) => Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe;
        const result = await axe.run({ resultTypes: ['violations'] });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
      });
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious, [], `accessibility on ${name}`);
    },
  };
}

/** A watched page on the console at `url`, logged in through the password form, showing the process search. */
export async function loggedInConsole(browser: Browser, url: string, user: { username: string; password: string }): Promise<WatchedPage> {
  const watched = await watchedPage(browser);
  // Generous: a whole test run shares the machine's cores with this browser.
  watched.page.setDefaultTimeout(30_000);
  const { page } = watched;
  await page.goto(`${url}/`);
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Process search' }).waitFor();
  return watched;
}
