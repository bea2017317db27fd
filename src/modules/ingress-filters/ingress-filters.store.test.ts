import { forEachDialect } from '../../../test/support/dialects.js';
import { ingressFiltersStoreContract } from './ingress-filters.store.contract.js';

forEachDialect(ingressFiltersStoreContract);
