import { forEachDialect } from '../../../test/support/dialects.js';
import { throttleStoreContract } from './throttle.store.contract.js';

forEachDialect(throttleStoreContract);
