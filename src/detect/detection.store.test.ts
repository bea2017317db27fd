import { forEachEventSide } from '../../test/support/event-side.js';
import { detectionStoreContract } from './detection.store.contract.js';

forEachEventSide(detectionStoreContract);
