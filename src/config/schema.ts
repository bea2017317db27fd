/**
 * Every setting Vigil has, with its default and what it means. One validated, frozen object of
 * this shape is built in main (config/load.ts) and passed down explicitly.
 */
import { Type, type Static } from '@sinclair/typebox';

export const ConfigSchema = Type.Object(
  {
    dataDir: Type.String({
      default: './vigil-data',
      description: 'Directory holding the embedded database, the TLS certificate and the token key.',
    }),
    host: Type.String({ default: '127.0.0.1', description: 'Address the HTTPS API listens on.' }),
    port: Type.Integer({ default: 8443, minimum: 0, maximum: 65535, description: 'Port the API listens on (0 picks a free one).' }),
    tls: Type.Boolean({
      default: true,
      description: 'Serve HTTPS with the certificate in the data dir (generated on first start). Plain HTTP only behind a TLS-terminating proxy: cbapi refuses http:// URLs.',
    }),
    logLevel: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info', description: 'Minimum level written to the log (stdout, one JSON object a line).' },
    ),
    apiBodyLimitBytes: Type.Integer({
      default: 1024 * 1024,
      minimum: 1024,
      description: 'Largest request body the REST API accepts; larger ones get 413.',
    }),
    checkinIntervalSeconds: Type.Integer({
      default: 30,
      minimum: 1,
      description: 'How often sensors check in; three missed intervals make a sensor Offline.',
    }),
    eventUploadLimitBytes: Type.Integer({
      default: 16 * 1024 * 1024,
      minimum: 1024,
      description: 'Largest event upload body as sent (compressed or not); larger ones get 413.',
    }),
    eventUploadDecodedLimitBytes: Type.Integer({
      default: 64 * 1024 * 1024,
      minimum: 1024,
      description: 'Largest event upload after decompression; larger ones get 413.',
    }),
    binaryUploadLimitBytes: Type.Integer({
      default: 128 * 1024 * 1024,
      minimum: 1024,
      description: 'Largest binary upload body (metadata and base64 content).',
    }),
    segmentMaxEvents: Type.Integer({ default: 10_000, minimum: 1, description: 'Events per process segment before a new one opens.' }),
    segmentWindowSeconds: Type.Integer({
      default: 600,
      minimum: 1,
      description: 'How long after it opens (server clock) a segment takes events before a new one opens.',
    }),
    searchWorkers: Type.Integer({
      default: 2,
      minimum: 1,
      maximum: 64,
      description: 'Threads that run searches, each with its own read-only connection to the embedded store.',
    }),
    ingestMaxEventsPerCommit: Type.Integer({
      default: 20_000,
      minimum: 1,
      description: 'Events per ingest transaction at most; bounds how long one commit holds the server.',
    }),
  },
  { additionalProperties: false },
);

export type Config = Readonly<Static<typeof ConfigSchema>>;
