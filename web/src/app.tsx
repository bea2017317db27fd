/** The console's frame: the login page until there is a credential, then the navigation and the page the hash names. */
import { useEffect, useState } from 'preact/hooks';
import { AdminPage } from './admin/admin-page.js';
import { AlertsPage } from './alerts/alerts-page.js';
import { credential, logout, onCredentialChange } from './api.js';
import { FeedsPage } from './feeds/feeds-page.js';
import { LiveResponsePage } from './live/live-response-page.js';
import { LoginPage } from './login/login-page.js';
import { ProcessPage } from './process/process-page.js';
import { href, useRoute } from './router.js';
import { installShortcuts } from './shortcuts.js';
import { BinarySearchPage } from './search/binary-search-page.js';
import { SearchPage } from './search/search-page.js';
import { SensorsPage } from './sensors/sensors-page.js';
import { WatchlistsPage } from './watchlists/watchlists-page.js';

const PAGES = [
  { part: 'search', label: 'Process search' },
  { part: 'binaries', label: 'Binary search' },
  { part: 'sensors', label: 'Sensors' },
  { part: 'alerts', label: 'Alerts' },
  { part: 'watchlists', label: 'Watchlists' },
  { part: 'feeds', label: 'Feeds' },
];

/** Only global admins manage users, teams and groups; the API refuses others anyway. */
const ADMIN_PAGE = { part: 'admin', label: 'Administration' };

export function App() {
  const [who, setWho] = useState(credential());
  useEffect(() => onCredentialChange(() => setWho(credential())), []);
  useEffect(installShortcuts, []);
  const route = useRoute();
  if (!who) return <LoginPage />;
  const page = route.parts[0] ?? 'search';
  return (
    <>
      <header class="top">
        <span class="brand">Vigil</span>
        <nav aria-label="Pages">
          {(who.globalAdmin ? [...PAGES, ADMIN_PAGE] : PAGES).map((p) => (
            <a key={p.part} href={href([p.part])} aria-current={page === p.part ? 'page' : undefined}>{p.label}</a>
          ))}
        </nav>
        <span class="who" title="Shortcuts: / search, j / k next and previous result">{who.username}</span>
        <button type="button" onClick={() => void logout()}>Log out</button>
      </header>
      <main>{pageFor(page, route.parts, route.params)}</main>
    </>
  );
}

function pageFor(page: string, parts: string[], params: URLSearchParams) {
  switch (page) {
    case 'process':
      return <ProcessPage id={parts[1] ?? ''} segment={parts[2] ?? '0'} />;
    case 'live':
      return <LiveResponsePage id={parts[1] ?? ''} />;
    case 'binaries':
      return <BinarySearchPage params={params} />;
    case 'alerts':
      return <AlertsPage params={params} />;
    case 'watchlists':
      return <WatchlistsPage />;
    case 'admin':
      return <AdminPage />;
    case 'feeds':
      return <FeedsPage />;
    case 'sensors':
      return <SensorsPage />;
    default:
      return <SearchPage params={params} />;
  }
}
