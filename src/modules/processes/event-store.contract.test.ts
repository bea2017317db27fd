/** The event store contract on both implementations, each on a real database. */
import { describe } from 'node:test';
import { postgresEventStore, sqliteEventStore } from '../../../test/support/event-stores.js';
import { eventStoreContract } from './event-store.contract.js';

describe('sqlite', () => eventStoreContract(sqliteEventStore, { shared: false }));
describe('postgres', () => eventStoreContract(postgresEventStore, { shared: true }));
