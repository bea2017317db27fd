import { forEachDialect } from '../../../test/support/dialects.js';
import { sysmonHostsStoreContract } from './sysmon-hosts.store.contract.js';

forEachDialect(sysmonHostsStoreContract);
