import { forEachDialect } from '../../../test/support/dialects.js';
import { liveResponseStoreContract } from './live-response.store.contract.js';

forEachDialect(liveResponseStoreContract);
