import { forEachDialect } from '../../../test/support/dialects.js';
import { forwarderStoreContract } from './forwarder.store.contract.js';

forEachDialect(forwarderStoreContract);
