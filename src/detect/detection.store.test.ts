import { forEachDialect, needsEventStore } from '../../test/support/dialects.js';
import { detectionStoreContract } from './detection.store.contract.js';

forEachDialect(detectionStoreContract, needsEventStore);
