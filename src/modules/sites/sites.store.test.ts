import { forEachDialect } from '../../../test/support/dialects.js';
import { sitesStoreContract } from './sites.store.contract.js';

forEachDialect(sitesStoreContract);
