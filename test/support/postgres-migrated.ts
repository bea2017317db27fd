/** Fresh PostgreSQL databases at the newest schema: the PostgreSQL dialect's (dialects.ts). */
export { freshMigratedDatabase, freshMigratedPostgres } from './dialects.js';
