import { forEachDialect } from '../../../test/support/dialects.js';
import { groupsStoreContract } from './groups.store.contract.js';

forEachDialect(groupsStoreContract);
