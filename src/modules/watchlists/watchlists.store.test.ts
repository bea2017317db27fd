import { forEachDialect } from '../../../test/support/dialects.js';
import { watchlistsStoreContract } from './watchlists.store.contract.js';

forEachDialect(watchlistsStoreContract);
