/** Storage partitions: an object keyed by partition name (reference admin §5). */
import { Type } from '@sinclair/typebox';

export const PartitionInfo = Type.Object(
  {
    status: Type.String({ description: 'hot, warm, mounted or unmounted' }),
    name: Type.String(),
    info: Type.Record(Type.String(), Type.Unknown()),
  },
);

export const PartitionList = Type.Record(Type.String(), PartitionInfo);
