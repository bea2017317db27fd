import { forEachDialect } from '../../../test/support/dialects.js';
import { dataSharingStoreContract } from './datasharing.store.contract.js';

forEachDialect(dataSharingStoreContract);
