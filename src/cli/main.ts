/**
 * The `vigil` command. Each subcommand builds the one Config from flags and VIGIL_* variables
 * and hands it down; nothing below reads the environment.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig } from '../config/load.js';
import { SchemaTooNewError } from '../db/migrate.js';
import { DomainError } from '../domain/errors.js';
import { exitOnSignals, serve } from '../main.js';
import { MAX_EVENTS_PER_BATCH } from '../ingest/event.schemas.js';
import { VIGIL_VERSION } from '../version.js';
import { runMigrate } from './migrate.js';
import { runMigrateStore } from './migrate-store.js';
import { runImport, type ImportCommandOptions } from './import.js';
import { runSimulate, type SimulateCommandOptions } from './simulate.js';
import { addUser, printToken, setPassword } from './users.js';

const program = new Command('vigil')
  .description('Vigil: an open-source EDR server with the Carbon Black EDR REST API.')
  .version(VIGIL_VERSION)
  .showHelpAfterError();

const dataDirOption = () =>
  new Option('--data-dir <dir>', 'data directory: database, TLS certificate, token key (default ./vigil-data)');
const databaseUrlOption = () =>
  new Option('--database-url <url>', 'keep the data in this PostgreSQL database (postgres://user:password@host/db) instead of the embedded store');
const secretKeyOption = () =>
  new Option('--secret-key-file <file>', 'key sealing install codes and feed credentials in the database (default <data-dir>/secrets.key)');

program
  .command('serve')
  .description(
    'Run the server, on the embedded store unless --database-url names a PostgreSQL database. On first start it creates the data dir (private to this user), ' +
      'a self-signed certificate, the secret key and the global admin "admin", and shows that user\'s API token ' +
      'once: on the terminal, or (when stdout is not one) in <data-dir>/admin-token.txt.',
  )
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .addOption(secretKeyOption())
  .option('--host <host>', 'address to listen on (default 127.0.0.1)')
  .option('--port <port>', 'port to listen on, 0 for any free one (default 8443)', parsePort)
  .option('--http', 'serve plain HTTP instead of HTTPS (only behind a TLS-terminating proxy)')
  .option('--public-url <url>', 'the URL sensors reach this server at, for installer packages (default: the URL the download used)')
  .option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (default info)')
  .action(async (options: StoreOptions & { host?: string; port?: number; http?: boolean; publicUrl?: string; logLevel?: string }) => {
    const config = loadConfig(
      {
        ...storeSettings(options),
        host: options.host,
        port: options.port,
        tls: options.http ? false : undefined,
        publicUrl: options.publicUrl,
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
  .addOption(databaseUrlOption())
  .addOption(secretKeyOption())
  .action(async (username: string, options: StoreOptions) => {
    await printToken(loadConfig(storeSettings(options), process.env), username);
  });

program
  .command('migrate')
  .description('Bring the database (--database-url, else the embedded store in --data-dir) up to this build\'s schema and say what was applied. vigil serve applies migrations too.')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .action(async (options: StoreOptions) => {
    await runMigrate(loadConfig(storeSettings(options), process.env));
  });

program
  .command('migrate-store')
  .description(
    'Copy a stopped embedded installation (--from, its data dir) into a PostgreSQL database (--to): every table, the events, ' +
      'binaries\' and live-response files\' content and the API token key, ids kept, in one transaction. Refuses a database that already holds data unless --force.',
  )
  .requiredOption('--from <dir>', 'the embedded store\'s data dir (its server stopped)')
  .requiredOption('--to <url>', 'the PostgreSQL database (postgres://user:password@host/db); migrated to this build\'s schema first')
  .addOption(new Option('--secret-key-file <file>', 'the embedded store\'s secret key (default <from>/secrets.key); give the same file to every server afterwards'))
  .option('--force', 'replace everything in a target database that already holds data')
  .action(async (options: { from: string; to: string; secretKeyFile?: string; force?: boolean }) => {
    const config = loadConfig({ databaseUrl: options.to, dataDir: options.from, secretKeyFile: options.secretKeyFile }, process.env);
    await runMigrateStore(options.from, config, options.force ?? false);
  });

const user = program.command('user').description('Manage users from the shell of the server\'s host.');
user
  .command('add')
  .description('Create a user and print their API token.')
  .argument('<username>')
  .option('--global-admin', 'make the user a global administrator')
  .option('--password-stdin', 'read the user\'s password from standard input (for console login)')
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .addOption(secretKeyOption())
  .action(async (username: string, options: StoreOptions & { globalAdmin?: boolean; passwordStdin?: boolean }) => {
    await addUser(loadConfig(storeSettings(options), process.env), {
      username,
      globalAdmin: options.globalAdmin ?? false,
      readPassword: options.passwordStdin ?? false,
    });
  });

user
  .command('passwd')
  .description('Set a user\'s password for console login: typed twice without echo on a terminal, else read from standard input (never an argument). Ends the user\'s console sessions.')
  .argument('<username>')
  // A password typed after the name would sit in the shell history and the process list.
  .allowExcessArguments(false)
  .addOption(dataDirOption())
  .addOption(databaseUrlOption())
  .addOption(secretKeyOption())
  .action(async (username: string, options: StoreOptions) => {
    await setPassword(loadConfig(storeSettings(options), process.env), username);
  });

program
  .command('simulate')
  .description(
    'Run simulated sensors against a server: each registers with the group\'s install code, checks in, ' +
      'uploads binaries and streams realistic events until its process budget or the duration is spent. ' +
      'Prints a summary; exits 1 unless every event was acknowledged.',
  )
  .option('--installer <file>', 'a group\'s installer package (GET /api/v1/group/{id}/installer/…): gives the server, its certificate and the install code')
  .option('--server <url>', 'the server, e.g. https://127.0.0.1:8443 (required without --installer)')
  .option('--token <token>', 'API token of an administrator of the group, to read its install code (required without --installer)')
  .option('--sensors <n>', 'number of simulated sensors that stream events', integerOption('--sensors', 0), 1)
  .option('--idle-sensors <n>', 'further sensors that only register and check in, their first check-ins spread over one interval (default 0)', integerOption('--idle-sensors', 0))
  .option('--processes <m>', 'processes each sensor starts before it stops (default 100 unless --duration)', integerOption('--processes', 1))
  .option('--duration <s>', 'stop after this many seconds', numberOption('--duration'))
  .option('--seed <k>', 'the same seed gives the same hosts, events and binaries (default random, printed)')
  .option('--rate <eps>', 'events per second across all sensors (default unlimited)', numberOption('--rate'))
  .option('--group <id>', 'sensor group to join (default 1; with --installer, the package\'s)', integerOption('--group', 1))
  .option('--batch-size <b>', `most events per upload (1-${MAX_EVENTS_PER_BATCH})`, integerOption('--batch-size', 1, MAX_EVENTS_PER_BATCH), 2000)
  .option('--checkin-interval <s>', 'seconds between check-ins', numberOption('--checkin-interval'), 5)
  .option('--ca <file>', 'verify the server certificate against this PEM (default: the --installer package\'s certificate, else not verified, as it is self-signed)')
  .option('--no-gzip', 'send event batches uncompressed')
  .option('--json', 'print the summary as JSON')
  .option('--progress-json', 'write the progress to stderr as one JSON object a line, every 5 s')
  .action(async (options: SimulateCommandOptions) => {
    await runSimulate(options);
  });

/** The flags that say where the data is, shared by every command that opens the store. */
interface StoreOptions {
  dataDir?: string;
  databaseUrl?: string;
  secretKeyFile?: string;
}

function storeSettings(options: StoreOptions): StoreOptions {
  return { dataDir: options.dataDir, databaseUrl: options.databaseUrl, secretKeyFile: options.secretKeyFile };
}

program
  .command('import')
  .description(
    'Load exported Sysmon logs into a running server: JSON lines (flat or Winlogbeat/ECS), evtx_dump JSON, ' +
      'Get-WinEvent JSON or event XML lines, gzip or not (docs/sysmon.md). Importing a file again stores nothing twice. ' +
      'Prints events read, stored and skipped by reason; exits 1 if a file could not be read to its end.',
  )
  .argument('<files...>', 'exported logs')
  .requiredOption('--server <url>', 'the server, e.g. https://127.0.0.1:8443')
  .requiredOption('--token <token>', 'API token of an administrator of the group')
  .option('--group <id>', 'sensor group the hosts join', integerOption('--group', 1), 1)
  .option('--ca <file>', 'verify the server certificate against this PEM (default: not verified, as it is self-signed)')
  .option('--json', 'print the summary as JSON')
  .action(async (files: string[], options: ImportCommandOptions) => {
    await runImport(files, options);
  });

function integerOption(flag: string, min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${flag} must be an integer from ${min} to ${max}.`);
    return n;
  };
}

function numberOption(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${flag} must be a positive number.`);
    return n;
  };
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, not ${value}`);
  return port;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof DomainError || error instanceof SchemaTooNewError;
  process.stderr.write(`vigil: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
