/** Vigil's own release, from package.json (one level above both src/ and dist/). */
import { createRequire } from 'node:module';

export const VIGIL_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
