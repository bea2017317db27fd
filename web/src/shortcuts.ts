/**
 * Keyboard shortcuts outside text fields: "/" goes to the page's query box, "j" and "k" to the
 * next and previous result's link.
 */
const TYPING = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

function moveResult(step: 1 | -1): void {
  const links = [...document.querySelectorAll<HTMLAnchorElement>('table.results tbody tr td:first-child a')];
  if (links.length === 0) return;
  const at = links.indexOf(document.activeElement as HTMLAnchorElement);
  const next = at < 0 ? (step === 1 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, at + step));
  links[next]!.focus();
}

export function installShortcuts(): () => void {
  const onKey = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey || TYPING.has((event.target as HTMLElement).tagName)) return;
    if (event.key === '/') {
      const box = document.querySelector<HTMLInputElement>('input[name="q"]');
      if (box) {
        event.preventDefault();
        box.focus();
      }
    } else if (event.key === 'j') moveResult(1);
    else if (event.key === 'k') moveResult(-1);
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
