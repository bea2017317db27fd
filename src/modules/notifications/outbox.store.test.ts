import { forEachDialect } from '../../../test/support/dialects.js';
import { outboxStoreContract } from './outbox.store.contract.js';

forEachDialect(outboxStoreContract);
