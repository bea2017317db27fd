/**
 * The sensor protocol's binary upload (docs/sensor-protocol.md): the metadata a sensor reports
 * about a file it saw, with or without the file. It is defined here, not in sensor-protocol.schemas,
 * because the binaries module stores and serves this metadata, and the sensors module's protocol
 * routes already depend on binaries to accept the upload.
 */
import { Type, type Static } from '@sinclair/typebox';

const Short = Type.String({ maxLength: 256 });

export const DigitalSignature = Type.Object({
  result: Type.Union(
    ['Signed', 'Unsigned', 'Expired', 'Bad Signature', 'Invalid Signature', 'Invalid Chain', 'Untrusted Root', 'Explicit Distrust']
      .map((value) => Type.Literal(value)),
  ),
  result_code: Type.Optional(Type.String({ maxLength: 32, description: 'the verification\'s HRESULT, decimal ("0" when signed)' })),
  publisher: Type.Optional(Short),
  issuer: Type.Optional(Short),
  subject: Type.Optional(Short),
  prog_name: Type.Optional(Short),
  sign_time: Type.Optional(Type.Integer({ minimum: 0, description: 'epoch ms' })),
}, { description: 'left out when the sensor could not check the signature: the binary then shows "(Unknown)"' });

const VersionText = Type.Optional(Type.String({ maxLength: 1024 }));

export const BinaryMetadata = Type.Object({
  md5: Type.String({ pattern: '^[0-9a-fA-F]{32}$' }),
  sha256: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$' })),
  size: Type.Integer({ minimum: 0 }),
  observed_filename: Type.String({ maxLength: 4096 }),
  original_filename: VersionText,
  internal_name: VersionText,
  company_name: VersionText,
  product_name: VersionText,
  product_version: VersionText,
  file_version: VersionText,
  file_desc: VersionText,
  legal_copyright: VersionText,
  legal_trademark: VersionText,
  private_build: VersionText,
  special_build: VersionText,
  comments: VersionText,
  is_executable_image: Type.Optional(Type.Boolean()),
  is_64bit: Type.Optional(Type.Boolean()),
  digsig: Type.Optional(DigitalSignature),
  icon: Type.Optional(Type.String({ maxLength: 1_000_000, description: 'base64 PNG (anything else is refused: invalid_icon)' })),
});
export type BinaryMetadata = Static<typeof BinaryMetadata>;

export const BinaryUpload = Type.Object({
  metadata: BinaryMetadata,
  content: Type.Optional(Type.String({ description: 'base64 of the file; omitted when the server already has it' })),
});
export type BinaryUpload = Static<typeof BinaryUpload>;
