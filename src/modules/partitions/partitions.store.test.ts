import { forEachEventSide } from '../../../test/support/event-side.js';
import { partitionsStoreContract } from './partitions.store.contract.js';

forEachEventSide(partitionsStoreContract);
