/**
 * bench/detect's detection content: watchlists of the kinds analysts write (process names,
 * command-line wildcards, domains, md5s, paths), a few of which match the simulator's hosts, and
 * a cbfeeds file of md5, IPv4 and domain IOCs, a few of them seen by the simulated hosts.
 */
import { createHash } from 'node:crypto';

const hex = (seed: string) => createHash('md5').update(seed).digest('hex');

/** Queries that match the simulated hosts' activity (bench/RESULTS.md notes which). */
const MATCHING = [
  'process_name:outlook.exe', 'process_name:winword.exe', 'domain:clients2.google.com', 'cmdline:*single-argument*',
  'path:c:\\windows\\system32\\dns.exe', 'parent_name:explorer.exe process_name:chrome.exe',
];

export function benchWatchlists(count: number): { name: string; search_query: string; index_type: 'events' }[] {
  const kinds = [
    (i: number) => `process_name:tool${i}.exe`,
    (i: number) => `cmdline:*payload${i}*`,
    (i: number) => `domain:c2-${i}.example.net`,
    (i: number) => `md5:${hex(`watchlist ${i}`)}`,
    (i: number) => `path:c:\\users\\public\\dropper${i}.exe`,
    (i: number) => `process_name:powershell.exe cmdline:*-enc${i}*`,
  ];
  return Array.from({ length: count }, (_, i) => {
    const q = i < MATCHING.length ? MATCHING[i]! : kinds[i % kinds.length]!(i);
    return { name: `bench ${i}`, search_query: `cb.urlver=1&q=${encodeURIComponent(q)}`, index_type: 'events' as const };
  });
}

export function benchFeed(iocs: number) {
  const reports = [];
  const perReport = 10;
  for (let r = 0; r * perReport < iocs; r++) {
    const md5: string[] = [];
    const ipv4: string[] = [];
    const dns: string[] = [];
    for (let k = 0; k < perReport; k++) {
      const n = r * perReport + k;
      if (n % 3 === 0) md5.push(hex(`ioc ${n}`));
      else if (n % 3 === 1) ipv4.push(`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`);
      else dns.push(`bad-${n}.example.org`);
    }
    // The first report holds values the simulated hosts contact.
    if (r === 0) dns.push('update.googleapis.com');
    if (r === 1) ipv4.push('142.250.72.196');
    reports.push({
      id: `bench-${r}`, title: `Bench report ${r}`, link: `https://intel.example/bench-${r}`, score: 50 + (r % 50),
      timestamp: 1_700_000_000, iocs: { md5, ipv4, dns },
    });
  }
  return {
    feedinfo: { name: 'benchintel', display_name: 'Bench intel', provider_url: 'https://intel.example', summary: 'bench', tech_data: 'bench' },
    reports,
  };
}
