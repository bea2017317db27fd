/**
 * A sensor group's data-sharing configurations (reference core §7.1): each says that the group's
 * data of one kind (`what`, e.g. "BIN" for binaries) may be shared with one party (`who`, e.g.
 * "VIRUSTOTAL"), as cbapi's check_datasharing.py reads them.
 */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

/**
 * Carbon Black's codes are short upper-case words ("VIRUSTOTAL", "BIN"); the full list was never
 * published, so any such word is taken rather than a guessed list that could refuse a real one.
 */
const SharingCode = Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,31}$' });

export const DataSharingConfig = Type.Object({
  id: Type.Integer(),
  group_id: Type.Integer(),
  who: Type.String(),
  what: Type.String(),
});
export type DataSharingConfig = Static<typeof DataSharingConfig>;

/** cbapi's legacy binding also sends group_id; when given it must name the group in the path. */
export const DataSharingCreateBody = Type.Object({
  who: SharingCode,
  what: SharingCode,
  group_id: Type.Optional(Type.Integer()),
});
export type DataSharingCreateBody = Static<typeof DataSharingCreateBody>;

export const DataSharingGroupParams = Type.Object({ id: IntegerId });
export const DataSharingConfigParams = Type.Object({ id: IntegerId, configId: IntegerId });
