import { forEachDialect, needsEventStore } from '../../../test/support/dialects.js';
import { partitionsStoreContract } from './partitions.store.contract.js';

forEachDialect(partitionsStoreContract, needsEventStore);
