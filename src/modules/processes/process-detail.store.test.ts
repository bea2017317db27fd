import { forEachDialect } from '../../../test/support/dialects.js';
import { processDetailStoreContract } from './process-detail.store.contract.js';

forEachDialect(processDetailStoreContract);
