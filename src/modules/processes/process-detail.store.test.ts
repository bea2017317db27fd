import { forEachEventSide } from '../../../test/support/event-side.js';
import { processDetailStoreContract } from './process-detail.store.contract.js';

forEachEventSide(processDetailStoreContract);
