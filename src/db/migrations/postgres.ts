/**
 * The PostgreSQL schema, as an ordered list of migrations. It starts from the embedded store's
 * final shape rather than replaying its history: no PostgreSQL database predates it. Append new
 * steps; never change a released one.
 */
import { coreSchema } from './postgres/001-core.js';
import { EVENTS_MIGRATION } from './postgres/002-events.js';
import { TAG_SENSORS_MIGRATION } from './postgres/003-tag-sensors.js';
import { NOTIFICATIONS_MIGRATION } from './postgres/004-notifications.js';
import { FORWARDER_MIGRATION } from './postgres/005-forwarder.js';
import { SEARCH_ORDER_MIGRATION } from './postgres/006-search-order.js';
import { BINARY_CONTENT_PIECES_MIGRATION } from './postgres/007-binary-content-pieces.js';
import { SENSOR_STATE_CHANGES_MIGRATION } from './postgres/008-sensor-state-changes.js';
import { SEARCH_COVERING_INDEXES_MIGRATION } from './postgres/009-search-covering-indexes.js';
import { SENSOR_SEQUENCES_MIGRATION } from './postgres/010-sensor-sequences.js';
import type { Migration } from './types.js';

export const postgresMigrations: readonly Migration[] = [
  coreSchema,
  EVENTS_MIGRATION,
  TAG_SENSORS_MIGRATION,
  NOTIFICATIONS_MIGRATION,
  FORWARDER_MIGRATION,
  SEARCH_ORDER_MIGRATION,
  BINARY_CONTENT_PIECES_MIGRATION,
  SENSOR_STATE_CHANGES_MIGRATION,
  SEARCH_COVERING_INDEXES_MIGRATION,
  SENSOR_SEQUENCES_MIGRATION,
];
