/**
 * Ingress filters compiled for the pipeline (reference admin §6): which sensors a filter applies
 * to, which processes it matches, and which of their events it drops. Pure and compiled once per
 * change of the filters (IngressFiltersService.compiled()); every call here is cheap, since the
 * pipeline makes them for every event.
 *
 * The pipeline's part: for a new process, the filters that apply to its sensor and match it (or
 * match an ancestor within their descendantLevel) are its filters; each of its events is dropped
 * when one of them dropsEvent. For hit_rate it counts, per filter that measures the process's
 * sensor, the processes seen and matched (IngressFiltersService.recordProcessCounts).
 */
import type { EventType } from './event.schemas.js';
import { compileValues, type ValueMatcher } from './ingress-filter-values.js';

/**
 * A stored filter as the pipeline reads it: the settings it enforces, named as on the wire. The
 * ingress-filters module's records satisfy this shape; declaring it here keeps the pipeline from
 * depending on the module that configures it (the module depends on the pipeline's compiler).
 */
export interface IngressFilterRule {
  id: string;
  settings: {
    enabled: boolean;
    priority: number;
    global: boolean;
    group_ids: readonly number[];
    sensor_ids: readonly number[];
    os_mask: number;
    path_filters: readonly string[];
    cmdline_filters: readonly string[];
    md5_filters: readonly string[];
    descendant_filtering_level: number;
    filter_all_events: boolean;
    regmod_filters: readonly string[];
    modload_filters: readonly string[];
    filemod_filters: readonly string[];
    non_binary_filemod_filters: readonly string[];
    netconn_filters: readonly string[];
    crossproc_filters: readonly string[];
    filter_on_server: boolean;
    track_metrics: boolean;
  };
}

export interface IngressScope {
  sensorId: number;
  groupId: number;
  osType: 'windows' | 'osx' | 'linux';
}

/** The new process's facts; '' for one the sensor did not report (it then matches no filter value). */
export interface IngressProcessFacts {
  path: string;
  cmdline: string;
  md5: string;
}

/**
 * The fields the per-event filters look at, named as on the wire so the event itself can be
 * passed: filemod path and file_type, regmod and modload path, crossproc target_path, netconn
 * domain and remote_ip.
 */
export interface EventFilterValue {
  path?: string | undefined;
  file_type?: number | undefined;
  target_path?: string | undefined;
  domain?: string | undefined;
  remote_ip?: string | undefined;
}

export interface CompiledIngressFilter {
  id: string;
  /** 0 the matched process only, n: that many generations of descendants, -1 all descendants. */
  descendantLevel: number;
  filterAllEvents: boolean;
  /** Enforced on this sensor: enabled, filtering on the server, and the sensor in its OS and sensor/group scope. */
  appliesTo(scope: IngressScope): boolean;
  /** Counts toward hit_rate on this sensor: in scope, and enabled or tracking metrics while disabled. */
  measures(scope: IngressScope): boolean;
  /**
   * The process matches every kind of process criterion the filter has (path, command line,
   * MD5), one of its values each; a filter with none of them matches no process by itself.
   */
  matchesProcess(process: IngressProcessFacts): boolean;
  /** Whether this event of a matched process is dropped: every one with filterAllEvents, else per the event-type filters. */
  dropsEvent(type: EventType, value: EventFilterValue): boolean;
}

const OS_BITS: Readonly<Record<IngressScope['osType'], number>> = { windows: 1, osx: 2, linux: 4 };

/** Carbon Black's file_type codes of executables (PE, ELF, Mach-O); other filemods are non-binary. */
const EXECUTABLE_FILE_TYPES: ReadonlySet<number | undefined> = new Set([1, 2, 3]);

/** The filters the pipeline has a use for, highest priority first (ties: oldest first). */
export function compileIngressFilters(filters: readonly IngressFilterRule[]): CompiledIngressFilter[] {
  return filters
    .map((filter) => new CompiledFilter(filter))
    .filter((filter) => filter.enforced || filter.trackMetrics)
    .sort((a, b) => b.priority - a.priority);
}

/** Compiles one filter; an invalid regex is an InvalidRequestError naming the field and index. */
export function compileIngressFilter(filter: IngressFilterRule): CompiledIngressFilter {
  return new CompiledFilter(filter);
}

class CompiledFilter implements CompiledIngressFilter {
  readonly id: string;
  readonly descendantLevel: number;
  readonly filterAllEvents: boolean;
  readonly priority: number;
  readonly enforced: boolean;
  readonly trackMetrics: boolean;
  private readonly osMask: number;
  private readonly global: boolean;
  private readonly groupIds: ReadonlySet<number>;
  private readonly sensorIds: ReadonlySet<number>;
  private readonly hasProcessCriteria: boolean;
  private readonly path: ValueMatcher | undefined;
  private readonly cmdline: ValueMatcher | undefined;
  private readonly md5: ValueMatcher | undefined;
  private readonly filemod: ValueMatcher | undefined;
  private readonly nonBinaryFilemod: ValueMatcher | undefined;
  private readonly regmod: ValueMatcher | undefined;
  private readonly modload: ValueMatcher | undefined;
  private readonly crossproc: ValueMatcher | undefined;
  private readonly netconn: ValueMatcher | undefined;

  constructor({ id, settings }: IngressFilterRule) {
    this.id = id;
    this.descendantLevel = settings.descendant_filtering_level;
    this.filterAllEvents = settings.filter_all_events;
    this.priority = settings.priority;
    this.enforced = settings.enabled && settings.filter_on_server;
    this.trackMetrics = settings.track_metrics;
    this.osMask = settings.os_mask;
    this.global = settings.global;
    this.groupIds = new Set(settings.group_ids);
    this.sensorIds = new Set(settings.sensor_ids);
    this.path = compileValues('path_filters', settings.path_filters, 'path');
    this.cmdline = compileValues('cmdline_filters', settings.cmdline_filters, 'text');
    this.md5 = compileValues('md5_filters', settings.md5_filters, 'caseless');
    this.hasProcessCriteria = this.path !== undefined || this.cmdline !== undefined || this.md5 !== undefined;
    this.filemod = compileValues('filemod_filters', settings.filemod_filters, 'path');
    this.nonBinaryFilemod = compileValues('non_binary_filemod_filters', settings.non_binary_filemod_filters, 'path');
    this.regmod = compileValues('regmod_filters', settings.regmod_filters, 'path');
    this.modload = compileValues('modload_filters', settings.modload_filters, 'path');
    this.crossproc = compileValues('crossproc_filters', settings.crossproc_filters, 'path');
    this.netconn = compileValues('netconn_filters', settings.netconn_filters, 'caseless');
  }

  appliesTo(scope: IngressScope): boolean {
    return this.enforced && this.inScope(scope);
  }

  measures(scope: IngressScope): boolean {
    return (this.enforced || this.trackMetrics) && this.inScope(scope);
  }

  matchesProcess(process: IngressProcessFacts): boolean {
    return this.hasProcessCriteria &&
      (this.path === undefined || this.path(process.path)) &&
      (this.cmdline === undefined || this.cmdline(process.cmdline)) &&
      (this.md5 === undefined || this.md5(process.md5));
  }

  dropsEvent(type: EventType, value: EventFilterValue): boolean {
    if (this.filterAllEvents) return true;
    switch (type) {
      case 'filemod':
        return value.path !== undefined && (
          matches(this.filemod, value.path) ||
          (!EXECUTABLE_FILE_TYPES.has(value.file_type) && matches(this.nonBinaryFilemod, value.path)));
      case 'regmod':
        return matches(this.regmod, value.path);
      case 'modload':
        return matches(this.modload, value.path);
      case 'crossproc':
        return matches(this.crossproc, value.target_path);
      case 'netconn':
        return matches(this.netconn, value.domain) || matches(this.netconn, value.remote_ip);
      default:
        return false;
    }
  }

  /**
   * Within the OS mask, and global or naming the sensor; a filter that names no sensor covers
   * every sensor of the groups it names.
   */
  private inScope(scope: IngressScope): boolean {
    if ((this.osMask & OS_BITS[scope.osType]) === 0) return false;
    if (this.global) return true;
    return this.sensorIds.size > 0 ? this.sensorIds.has(scope.sensorId) : this.groupIds.has(scope.groupId);
  }
}

function matches(matcher: ValueMatcher | undefined, value: string | undefined): boolean {
  return matcher !== undefined && value !== undefined && matcher(value);
}
