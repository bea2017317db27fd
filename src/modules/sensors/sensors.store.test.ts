import { forEachDialect } from '../../../test/support/dialects.js';
import { sensorsStoreContract } from './sensors.store.contract.js';

forEachDialect(sensorsStoreContract);
