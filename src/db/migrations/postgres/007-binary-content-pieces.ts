/**
 * PostgreSQL schema version 7: a binary's content in pieces of at most 1 MB
 * (binary_content_pieces), as live-response files are kept, so that an upload goes into the
 * database and a download comes out of it a piece at a time rather than as one value held whole
 * in memory (issue 17 point 5). binary_content keeps one row per complete content, with its size
 * and number of pieces; content stored before this migration becomes a single piece.
 */
import type { Migration } from '../types.js';

export const BINARY_CONTENT_PIECES_MIGRATION: Migration = {
  version: 7,
  name: 'binary content in pieces',
  sql: `
    CREATE TABLE binary_content_pieces (
      md5 TEXT NOT NULL,
      piece INTEGER NOT NULL,
      data BYTEA NOT NULL,
      PRIMARY KEY (md5, piece)
    );
    INSERT INTO binary_content_pieces (md5, piece, data) SELECT md5, 0, content FROM binary_content;
    ALTER TABLE binary_content ADD COLUMN size BIGINT, ADD COLUMN pieces INTEGER;
    UPDATE binary_content SET size = length(content), pieces = 1;
    ALTER TABLE binary_content ALTER COLUMN size SET NOT NULL, ALTER COLUMN pieces SET NOT NULL, DROP COLUMN content;
  `,
};
