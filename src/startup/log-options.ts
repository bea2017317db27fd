/**
 * The server log: one JSON object a line for machines (a service log, a shipper), and pino-pretty's
 * coloured lines for a person watching a terminal. Pretty-printing runs in this thread, writing
 * synchronously, so log lines and what the server prints for the person stay in order.
 */
import type { FastifyServerOptions } from 'fastify';
import pretty from 'pino-pretty';
import type { Config } from '../config/schema.js';

export function logOptions(level: Config['logLevel'], toTerminal: boolean): FastifyServerOptions['logger'] {
  if (!toTerminal) return { level };
  return { level, stream: pretty({ sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }) };
}
