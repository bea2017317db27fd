import { forEachDialect } from '../../../test/support/dialects.js';
import { threatReportsStoreContract } from './threat-reports.store.contract.js';

forEachDialect(threatReportsStoreContract);
