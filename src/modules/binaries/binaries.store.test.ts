import { forEachDialect } from '../../../test/support/dialects.js';
import { binariesStoreContract } from './binaries.store.contract.js';

forEachDialect(binariesStoreContract);
