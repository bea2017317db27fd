import { forEachDialect } from '../../../test/support/dialects.js';
import { licenseStoreContract } from './license.store.contract.js';

forEachDialect(licenseStoreContract);
