import { forEachDialect } from '../../../test/support/dialects.js';
import { alertsStoreContract } from './alerts.store.contract.js';

forEachDialect(alertsStoreContract);
