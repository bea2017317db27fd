import { forEachDialect } from '../../../test/support/dialects.js';
import { teamsStoreContract } from './teams.store.contract.js';

forEachDialect(teamsStoreContract);
