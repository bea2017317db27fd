/**
 * Where the binary fields of the query language live in the metadata document a sensor sends
 * about a file (sensor-protocol.schemas.ts), kept as sent: a fact of the data rather than of a
 * database, so every dialect's compiler and search store reads the same JSON paths.
 */
export const METADATA_PATH: Readonly<Record<string, string>> = {
  comments: '$.comments', company_name: '$.company_name', file_desc: '$.file_desc', file_version: '$.file_version',
  internal_name: '$.internal_name', legal_copyright: '$.legal_copyright', legal_trademark: '$.legal_trademark',
  original_filename: '$.original_filename', private_build: '$.private_build', special_build: '$.special_build',
  product_desc: '$.product_desc', product_name: '$.product_name', product_version: '$.product_version',
  digsig_issuer: '$.digsig.issuer', digsig_prog_name: '$.digsig.prog_name', digsig_publisher: '$.digsig.publisher',
  digsig_subject: '$.digsig.subject', digsig_result: '$.digsig.result', digsig_sign_time: '$.digsig.sign_time',
  is_64bit: '$.is_64bit', is_executable_image: '$.is_executable_image',
};
