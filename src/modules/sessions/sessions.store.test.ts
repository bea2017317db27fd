import { forEachDialect } from '../../../test/support/dialects.js';
import { sessionsStoreContract } from './sessions.store.contract.js';

forEachDialect(sessionsStoreContract);
