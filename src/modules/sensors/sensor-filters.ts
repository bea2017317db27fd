/** How the listings' query parameters become a store filter and sort, within what the caller may see. */
import { InvalidRequestError } from '../../domain/errors.js';
import { canViewGroup, type Principal } from '../../domain/permissions.js';
import type { SensorSearchQuery, SensorSortColumn } from './sensors.schemas.js';
import type { SensorFilter, SensorPage, SensorSort } from './sensors.store.js';

const SORTS: Record<SensorSortColumn, SensorSort> = {
  id: 'id',
  computer_name: 'computerName',
  computer_dns_name: 'computerDnsName',
  group_id: 'groupId',
  os_environment_display_string: 'osEnvironment',
  build_version_string: 'buildVersion',
  registration_time: 'registration',
  last_checkin_time: 'lastCheckin',
};

/** Rows of a page when the client does not say. */
const DEFAULT_ROWS = 10;

/** The page a paginated listing asks for, by id unless it names a sort. */
export function pageOf(query: SensorSearchQuery): SensorPage {
  return {
    sort: SORTS[query['sort.col'] ?? 'id'],
    descending: query['sort.dir'] === 'desc',
    start: query.start ?? 0,
    rows: query.rows ?? DEFAULT_ROWS,
  };
}

/** The filters both listings take; `q` is cbapi's where() text, one "<field>:<value>". */
export type FilterParams = Pick<SensorSearchQuery, 'hostname' | 'ip' | 'groupid' | 'q'>;

/**
 * The store filter of a listing: the caller's visible groups (narrowed to groupid), and ip or
 * hostname; as Carbon Black documented, when both are given only ip is used.
 */
export function filterOf(actor: Principal, params: FilterParams): SensorFilter {
  const { hostname, ip, groupid } = { ...params, ...whereOf(params.q) };
  const visible = actor.globalAdmin ? undefined : [...actor.groupAccess.keys()].filter((group) => canViewGroup(actor, group));
  const groupIds = groupid === undefined ? visible : visible === undefined || visible.includes(groupid) ? [groupid] : [];
  return { groupIds, ip, hostname: ip === undefined ? hostname : undefined };
}

const IP_TEXT = /^[0-9A-Fa-f.:]{1,45}$/;

/** cbapi's where("<field>:<value>") arrives as q; the same three fields as the parameters. */
function whereOf(q: string | undefined): Omit<FilterParams, 'q'> {
  if (q === undefined || q === '') return {};
  const colon = q.indexOf(':');
  const field = q.slice(0, colon);
  const value = q.slice(colon + 1);
  if (colon > 0 && value !== '') {
    if (field === 'hostname') return { hostname: value };
    if (field === 'ip' && IP_TEXT.test(value)) return { ip: value };
    if (field === 'groupid' && /^[1-9][0-9]{0,9}$/.test(value)) return { groupid: Number(value) };
  }
  throw new InvalidRequestError(`q: expected hostname:<text>, ip:<address text> or groupid:<id>, not ${JSON.stringify(q)}`);
}
