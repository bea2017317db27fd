/**
 * `vigil serve`: config → store → container → app → listen, then a clean shutdown on SIGINT or
 * SIGTERM (stop accepting, finish requests in flight, commit what is pending, close the store).
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { warnLoosenedDataDir } from './startup/data-dir-warning.js';
import { announceFirstStart } from './startup/first-start.js';
import { logOptions } from './startup/log-options.js';
import type { Config } from './config/schema.js';
import { createContainer, type Container } from './container.js';
import { BUILT_CONSOLE_DIR, consoleBuilt } from './http/console-static.js';
import { loadOrCreateCertificate, tlsFiles } from './http/tls.js';

export interface RunningServer {
  app: FastifyInstance;
  container: Container;
  url: string;
  /** Idempotent: the first call shuts down, later calls wait for the same shutdown. */
  shutdown(): Promise<void>;
}

/** `out` receives what is meant for the person who started the server (the first admin token when it is a terminal). */
export async function serve(config: Config, out: NodeJS.WritableStream = process.stdout): Promise<RunningServer> {
  const container = await createContainer(config);
  try {
    const adminToken = await container.services.users.bootstrapAdmin();
    const tls = config.tls ? await loadOrCreateCertificate(config.dataDir, config.host) : undefined;
    // A request line per sensor upload would drown the log; requests are logged at debug and below.
    const logRequests = config.logLevel === 'debug' || config.logLevel === 'trace';
    const consoleDir = consoleBuilt(BUILT_CONSOLE_DIR) ? BUILT_CONSOLE_DIR : undefined;
    const app = await buildApp(container, { tls, logger: logOptions(config.logLevel, process.stdout.isTTY === true), logRequests, consoleDir });
    warnLoosenedDataDir(app.log, config.dataDir, container.loosenedPaths);
    const address = await app.listen({ host: config.host, port: config.port, backlog: config.listenBacklog });
    if (tls?.created) app.log.info({ certificate: tlsFiles(config.dataDir).certFile }, 'generated a self-signed TLS certificate');
    app.log.info({ url: address, dataDir: config.dataDir }, `Vigil is listening on ${address}`);
    if (consoleDir) app.log.info({ console: `${address}/` }, `the analyst console is at ${address}/`);
    else app.log.warn({ expected: BUILT_CONSOLE_DIR }, 'the analyst console is not built (npm run build): / is not served');
    if (adminToken) announceFirstStart({ adminToken, url: address, dataDir: config.dataDir, consoleServed: consoleDir !== undefined }, out, app.log);
    container.storage.start(config.storageCheckSeconds * 1000, app.log, container.jobs);
    let stopping: Promise<void> | undefined;
    const shutdown = () =>
      (stopping ??= (async () => {
        app.log.info('shutting down');
        await app.close();
        await container.close();
        app.log.info({ detectionLag: container.detectionMatcher.lagStats() }, 'detection lag from commit to recorded hits');
      })());
    return { app, container, url: address, shutdown };
  } catch (error) {
    await container.close();
    throw error;
  }
}

/** Shuts the server down on the first SIGINT/SIGTERM and exits; a second signal exits at once. */
export function exitOnSignals(server: RunningServer): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(130);
    signalled = true;
    server.app.log.info({ signal }, 'signal received');
    server.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
