import { forEachDialect } from '../../../test/support/dialects.js';
import { ingestKeysStoreContract } from './ingest-keys.store.contract.js';

forEachDialect(ingestKeysStoreContract);
