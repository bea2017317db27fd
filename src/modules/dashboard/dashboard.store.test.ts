import { forEachDialect } from '../../../test/support/dialects.js';
import { dashboardStoreContract } from './dashboard.store.contract.js';

forEachDialect(dashboardStoreContract);
