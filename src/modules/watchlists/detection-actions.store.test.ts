import { forEachDialect } from '../../../test/support/dialects.js';
import { detectionActionsStoreContract } from './detection-actions.store.contract.js';

forEachDialect(detectionActionsStoreContract);
