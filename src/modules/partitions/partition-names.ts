/** Partition names shared by both stores' partition writers. */

/** cbevents_YYYY_MM_DD_hhmm (UTC), Carbon Black's name for a warm partition. */
export function warmName(startMs: number): string {
  const iso = new Date(startMs).toISOString();
  return `cbevents_${iso.slice(0, 4)}_${iso.slice(5, 7)}_${iso.slice(8, 10)}_${iso.slice(11, 13)}${iso.slice(14, 16)}`;
}
