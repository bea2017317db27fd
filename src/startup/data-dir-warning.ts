/** The warning a start gives when it had to take the data dir back from other users. */
import type { FastifyBaseLogger } from 'fastify';
import type { LoosenedPath } from '../db/private-files.js';

const LISTED = 10;

export function warnLoosenedDataDir(log: FastifyBaseLogger, dataDir: string, loosened: readonly LoosenedPath[]): void {
  if (loosened.length === 0) return;
  log.warn(
    {
      dataDir,
      count: loosened.length,
      paths: loosened.slice(0, LISTED).map(({ path, mode }) => `${path} (was ${mode.toString(8).padStart(4, '0')})`),
    },
    `the data dir held ${loosened.length} files or directories other users could reach (it keeps keys, tokens ` +
      'and sensor data); they are now private to this user (directories 0700, files 0600)',
  );
}
