/**
 * The Sysmon recordings of real attack simulations in shared/fixtures/sysmon (beside the
 * checkout, as in CI), read as their lines.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const FIXTURES = new URL('../../../shared/fixtures/sysmon/', import.meta.url);

/** The recording's file, gzipped JSON lines as the lab exported them. */
export function recordingPath(name: string): string {
  return new URL(`${name}.jsonl.gz`, FIXTURES).pathname;
}

/** The recording's lines, blank ones included, as they are in the file. */
export function recordingLines(name: string): string[] {
  return gunzipSync(readFileSync(recordingPath(name))).toString('utf8').split('\n');
}

/** The recording's events, parsed (blank lines left out). */
export function recordingEvents(name: string): Record<string, unknown>[] {
  return recordingLines(name).filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
}
