/**
 * The `vigil` command. Each subcommand builds the one Config from flags and VIGIL_* variables
 * and hands it down; nothing below reads the environment.
 */
import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from '../config/load.js';
import { DomainError } from '../domain/errors.js';
import { exitOnSignals, serve } from '../main.js';
import { VIGIL_VERSION } from '../version.js';
import { addUser, printToken } from './users.js';

const program = new Command('vigil')
  .description('Vigil: an open-source EDR server with the Carbon Black EDR REST API.')
  .version(VIGIL_VERSION)
  .showHelpAfterError();

const dataDirOption = () =>
  new Option('--data-dir <dir>', 'data directory: database, TLS certificate, token key (default ./vigil-data)');

program
  .command('serve')
  .description(
    'Run the server on the embedded store. On first start it creates the data dir, a self-signed ' +
      'certificate and the global admin "admin", and prints that user\'s API token once.',
  )
  .addOption(dataDirOption())
  .option('--host <host>', 'address to listen on (default 127.0.0.1)')
  .option('--port <port>', 'port to listen on, 0 for any free one (default 8443)', parsePort)
  .option('--http', 'serve plain HTTP instead of HTTPS (only behind a TLS-terminating proxy)')
  .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (default info)')
  .action(async (options: { dataDir?: string; host?: string; port?: number; http?: boolean; logLevel?: string }) => {
    const config = loadConfig(
      {
        dataDir: options.dataDir,
        host: options.host,
        port: options.port,
        tls: options.http ? false : undefined,
        logLevel: options.logLevel as never,
      },
      process.env,
    );
    exitOnSignals(await serve(config));
  });

program
  .command('token')
  .description('Print a user\'s API token (for scripts: X-Auth-Token), creating one if the user has none valid.')
  .argument('<username>')
  .addOption(dataDirOption())
  .action(async (username: string, options: { dataDir?: string }) => {
    await printToken(loadConfig({ dataDir: options.dataDir }, process.env), username);
  });

const user = program.command('user').description('Manage users from the shell of the server\'s host.');
user
  .command('add')
  .description('Create a user and print their API token.')
  .argument('<username>')
  .option('--global-admin', 'make the user a global administrator')
  .option('--password-stdin', 'read the user\'s password from standard input (for console login)')
  .addOption(dataDirOption())
  .action(async (username: string, options: { globalAdmin?: boolean; passwordStdin?: boolean; dataDir?: string }) => {
    await addUser(loadConfig({ dataDir: options.dataDir }, process.env), {
      username,
      globalAdmin: options.globalAdmin ?? false,
      readPassword: options.passwordStdin ?? false,
    });
  });

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, not ${value}`);
  return port;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof DomainError;
  process.stderr.write(`vigil: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
