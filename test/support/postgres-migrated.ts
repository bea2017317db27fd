/** A fresh PostgreSQL database at the newest schema, dropped when closed: the PostgreSQL dialect's (dialects.ts). */
export { freshMigratedPostgres } from './dialects.js';
