/**
 * How long the console takes to show an API's answer, timed inside the page: a MutationObserver
 * sees the text arrive, a frame callback and a task after it see it painted. Both are counted
 * from the end of the answer (Resource Timing's responseEnd), so the test driver's own round
 * trips and polling are left out, as they are no part of what an analyst waits for.
 */
import type { Page } from 'playwright-core';

export interface Shown {
  /** Milliseconds from the answer's end to the DOM holding the text. */
  dom: number;
  /** Milliseconds from the answer's end to the frame after that, painted. */
  painted: number;
}

const arm = (selector: string, text: string, api: string) => `(() => {
  performance.clearResourceTimings();
  window.__shown = new Promise((resolve) => {
    const seen = () => [...document.querySelectorAll(${JSON.stringify(selector)})].some((e) => e.textContent.includes(${JSON.stringify(text)}));
    const observer = new MutationObserver(() => {
      if (!seen()) return;
      observer.disconnect();
      const domAt = performance.now();
      requestAnimationFrame(() => setTimeout(() => {
        const answer = performance.getEntriesByType('resource').filter((r) => r.name.includes(${JSON.stringify(api)})).pop();
        resolve(answer ? { dom: domAt - answer.responseEnd, painted: performance.now() - answer.responseEnd } : { dom: -1, painted: -1 });
      }));
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
})()`;

/**
 * Runs `act` (a navigation or a click) and times the first element matching `selector` to hold
 * `text` after the answer of the last API URL containing `api`; -1 when no such answer was seen.
 */
export async function timeShown(page: Page, act: () => Promise<unknown>, selector: string, text: string, api: string): Promise<Shown> {
  await page.evaluate(arm(selector, text, api));
  await act();
  return page.evaluate('window.__shown') as Promise<Shown>;
}
