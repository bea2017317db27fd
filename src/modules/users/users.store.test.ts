import { forEachDialect } from '../../../test/support/dialects.js';
import { usersStoreContract } from './users.store.contract.js';

forEachDialect(usersStoreContract);
