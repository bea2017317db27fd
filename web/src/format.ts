/** How times and counts read in the console. */
export function when(iso: string | undefined | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function count(n: number | undefined): string {
  return (n ?? 0).toLocaleString('en-US');
}
