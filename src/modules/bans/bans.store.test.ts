import { forEachDialect } from '../../../test/support/dialects.js';
import { bansStoreContract } from './bans.store.contract.js';

forEachDialect(bansStoreContract);
