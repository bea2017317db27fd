/**
 * What an ingress filter's fields are when nobody set them: given to a new filter, and laid under
 * every stored filter when it is read (so filters written before a field existed show a value for
 * it). Values follow reference admin §6.2 and cbapi's ingress_filter.yaml; version and internal are
 * "not used yet" there and have no stated default.
 */
import type { IngressFilterSettings } from './ingress-filters.schemas.js';

export const INGRESS_FILTER_DEFAULTS: Readonly<Omit<IngressFilterSettings, 'name'>> = {
  description: '',
  enabled: true,
  priority: 0,
  version: 0,
  internal: false,
  global: true,
  group_ids: [],
  sensor_ids: [],
  os_mask: 7,
  path_filters: [],
  cmdline_filters: [],
  md5_filters: [],
  descendant_filtering_level: 0,
  filter_all_events: true,
  regmod_filters: [],
  modload_filters: [],
  filemod_filters: [],
  non_binary_filemod_filters: [],
  netconn_filters: [],
  crossproc_filters: [],
  filter_on_sensor: false,
  filter_on_server: true,
  track_metrics: true,
};
