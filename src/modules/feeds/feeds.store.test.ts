import { forEachDialect } from '../../../test/support/dialects.js';
import { feedsStoreContract } from './feeds.store.contract.js';

forEachDialect(feedsStoreContract);
