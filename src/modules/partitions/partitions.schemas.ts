/** Storage partitions: an object keyed by partition name (reference admin §5.2); `info` is camelCase. */
import { Type, type Static } from '@sinclair/typebox';

export const PartitionInfo = Type.Object({
  sizeInBytes: Type.Integer({ description: 'event data written into the partition' }),
  startDate: Type.String({ description: 'when it began taking events (ISO, microseconds)' }),
  endDate: Type.Union([Type.String(), Type.Null()], { description: 'when it stopped; null for the hot partition' }),
  partitionId: Type.Integer(),
  numDocs: Type.Integer({ description: 'process segments (search documents) written into it' }),
  maxDoc: Type.Integer(),
  deletedDocs: Type.Integer(),
  segmentCount: Type.Integer(),
  userMounted: Type.Boolean({ description: 'mounted by an administrator rather than warm since its rollover' }),
  isLegacy: Type.Boolean({ description: 'never: every partition is read by this server\'s current schema' }),
  dir: Type.String({ description: 'the file holding its events (its segments and search index are rows of the database beside it)' }),
  schema: Type.String(),
});

export const Partition = Type.Object({
  status: Type.Union([Type.Literal('hot'), Type.Literal('warm'), Type.Literal('cold')], {
    description: 'hot: takes new events (one, named writer); warm: mounted, searched; cold: unmounted, kept but not searched',
  }),
  name: Type.String(),
  info: PartitionInfo,
});
export type Partition = Static<typeof Partition>;

export const PartitionList = Type.Record(Type.String(), Partition);

export const PartitionParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });

const NullableInteger = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

/** Vigil's own addition beside the partitions, camelCase as their `info` is; null where the server cannot know. */
export const StorageForecast = Type.Object({
  bytesPerDay: NullableInteger('event data written per day (as sizeInBytes counts it) by the partitions of the last 30 days'),
  sampleStartDate: Type.Union([Type.String(), Type.Null()], { description: 'when the oldest of those partitions began (ISO, microseconds)' }),
  sampleDays: Type.Number({ description: 'days the pace is measured over' }),
  diskTotalBytes: NullableInteger('size of the disk holding the event store; null when this server cannot see it (PostgreSQL)'),
  diskFreeBytes: NullableInteger('free on that disk, plus the space the database holds free for reuse'),
  daysUntilFull: Type.Union([Type.Number(), Type.Null()], { description: 'days until the free space is used at that pace' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'why a figure is null or the disk is not filling' }),
});
export type StorageForecast = Static<typeof StorageForecast>;
