import { forEachDialect } from '../../../test/support/dialects.js';
import { investigationsStoreContract } from './investigations.store.contract.js';

forEachDialect(investigationsStoreContract);
