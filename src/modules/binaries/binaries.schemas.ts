/** Wire shapes of the analyst binary routes (reference core §5). */
import { Type, type Static } from '@sinclair/typebox';
import { ALLIANCE_PROPERTIES, WatchlistTagsWire, type AllianceFields } from '../../detect/document-tags.wire.js';

export const Md5Params = Type.Object({
  md5: Type.String({ description: 'MD5 of the content, 32 hex digits in any case; anything else names no binary (404)' }),
});

const Text = Type.Optional(Type.String());

/**
 * A binary document as the real 6.2 server's /summary sent it. Version-info and signature detail
 * fields are absent when the sensor did not report them, as on the real server.
 */
const BINARY_DOCUMENT_PROPERTIES = {
  md5: Type.String({ description: 'uppercase' }),
  sha256: Type.Optional(Type.String({ description: 'lowercase; a Vigil (and 7.x) addition' })),
  server_added_timestamp: Type.String({ description: 'when the server first heard of the binary' }),
  timestamp: Type.String(),
  last_seen: Type.String(),
  orig_mod_len: Type.Integer({ description: 'file size in bytes' }),
  copied_mod_len: Type.Integer({ description: 'bytes of content the server holds; 0 when not collected' }),
  observed_filename: Type.Array(Type.String(), { description: 'lowercase paths' }),
  original_filename: Text,
  internal_name: Text,
  company_name: Text,
  product_name: Text,
  product_version: Text,
  file_version: Text,
  file_desc: Text,
  legal_copyright: Text,
  legal_trademark: Text,
  private_build: Text,
  special_build: Text,
  comments: Text,
  is_executable_image: Type.Boolean(),
  is_64bit: Type.Boolean(),
  digsig_result: Type.String({
    description: 'Signed, Unsigned, Expired, Bad Signature, Invalid Signature, Invalid Chain, Untrusted Root, Explicit Distrust, or (Unknown) when the sensor did not say',
  }),
  signed: Type.String({ description: 'same as digsig_result' }),
  digsig_result_code: Text,
  digsig_sign_time: Text,
  digsig_publisher: Text,
  digsig_issuer: Text,
  digsig_subject: Text,
  digsig_prog_name: Text,
  host_count: Type.Integer(),
  endpoint: Type.Array(Type.String(), { description: '"HOSTNAME|sensor_id"' }),
  group: Type.Array(Type.String(), { description: 'sensor group names' }),
  os_type: Type.String({ description: 'Windows, OSX or Linux' }),
  cb_version: Type.Integer(),
  watchlists: WatchlistTagsWire,
};

/** A binary as search lists it: the summary without the icon, with its detection tags (alliance_* per feed). */
export const BinaryDocument = Type.Object(BINARY_DOCUMENT_PROPERTIES, ALLIANCE_PROPERTIES);
export type BinaryDocument = Static<typeof BinaryDocument> & AllianceFields;

export const BinarySummary = Type.Object({
  ...BINARY_DOCUMENT_PROPERTIES,
  icon: Type.String({ description: 'base64 PNG: the sensor\'s, or the default icon when it sent none' }),
}, ALLIANCE_PROPERTIES);
export type BinarySummary = Static<typeof BinarySummary> & AllianceFields;
