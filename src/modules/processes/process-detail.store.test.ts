import { forEachDialect, needsEventStore } from '../../../test/support/dialects.js';
import { processDetailStoreContract } from './process-detail.store.contract.js';

forEachDialect(processDetailStoreContract, needsEventStore);
