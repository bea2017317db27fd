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
  },
  { additionalProperties: false },
);

export type Config = Readonly<Static<typeof ConfigSchema>>;
