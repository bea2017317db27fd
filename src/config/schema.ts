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
    databaseUrl: Type.Optional(Type.String({
      pattern: '^postgres(ql)?://',
      description: 'A PostgreSQL URL (postgres://user:password@host:5432/vigil): keep the data in that database instead of the embedded store in the data dir. Every Vigil server on one database needs the same secret key file.',
    })),
    databasePoolSize: Type.Integer({
      default: 10,
      // Up to four search snapshots keep a connection each while clients page (ADR 0008), and
      // the writer, the jobs and the requests need some beside them.
      minimum: 8,
      maximum: 1_000,
      description: 'On PostgreSQL: connections each Vigil server keeps open at most (one more listens for the other servers\' changes). Mind max_connections: servers × (this + 1) must fit under it.',
    }),
    databaseStatementTimeoutMs: Type.Integer({
      default: 120_000,
      minimum: 1_000,
      description: 'On PostgreSQL: a statement whose answer has not come after this long fails (503 with Retry-After) and its connection is closed, so a database that went silent (a network partition, a failover) cannot hold a request or the writer. Longer than searchTimeLimitMs; migrations have no limit.',
    }),
    databaseVacuumSeconds: Type.Integer({
      default: 0,
      minimum: 0,
      description: 'On PostgreSQL: how often one server vacuums segments and processes, so that searches read the rows written since by index alone (docs/adr/0027-postgres-search-plans.md); 0, the default, leaves it to autovacuum: on the bench, vacuuming every 10 s slowed the searches it was meant to speed.',
    }),
    secretKeyFile: Type.Optional(Type.String({
      minLength: 1,
      description: 'File holding the key that seals install codes and feed credentials in the database (default: secrets.key in the data dir; created on first start). Keep it apart from the database\'s backups.',
    })),
    host: Type.String({ default: '127.0.0.1', description: 'Address the HTTPS API listens on.' }),
    port: Type.Integer({ default: 8443, minimum: 0, maximum: 65535, description: 'Port the API listens on (0 picks a free one).' }),
    tls: Type.Boolean({
      default: true,
      description: 'Serve HTTPS with the certificate in the data dir (generated on first start). Plain HTTP only behind a TLS-terminating proxy: cbapi refuses http:// URLs.',
    }),
    publicUrl: Type.String({
      default: '',
      pattern: '^(https?://[^\\s/?#@]+/?)?$',
      description: 'The URL sensors and clients reach the server at (https://host:port), written into sensor installer packages and new groups\' sensorbackend_server. Empty: the installer takes the URL its download was requested at, groups the address the server listens on.',
    }),
    logLevel: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info', description: 'Minimum level written to the log (stdout: one JSON object a line, pretty-printed when stdout is a terminal).' },
    ),
    apiBodyLimitBytes: Type.Integer({
      default: 1024 * 1024,
      minimum: 1024,
      description: 'Largest request body the REST API accepts; larger ones get 413.',
    }),
    tlsHandshakeTimeoutSeconds: Type.Number({
      default: 10,
      exclusiveMinimum: 0,
      description: 'A connection that has not completed its TLS handshake this long after it opened is closed.',
    }),
    headersTimeoutSeconds: Type.Number({
      default: 20,
      exclusiveMinimum: 0,
      description: 'A request whose line and headers have not all arrived this long after they began (or after the connection opened) is closed.',
    }),
    keepAliveTimeoutSeconds: Type.Number({
      default: 75,
      exclusiveMinimum: 0,
      description: 'A kept-alive connection idle this long between requests is closed. Longer than two check-in intervals, so a sensor keeps its connection (and skips a TLS handshake) from one check-in to the next, even after a late one; each such connection counts against maxConnections and maxConnectionsPerAddress.',
    }),
    idleTimeoutSeconds: Type.Number({
      default: 300,
      exclusiveMinimum: 0,
      description: 'A connection with no bytes in either direction for this long while a request is under way is closed; longer than any wait a request makes in silence (a live-response command wait, a search).',
    }),
    requestTimeoutSeconds: Type.Number({
      default: 3600,
      exclusiveMinimum: 0,
      description: 'A request (headers and body) not wholly received this long after it began is closed; generous, so that the largest upload at a slow link\'s speed still fits (256 MiB at 75 KB/s).',
    }),
    maxConnections: Type.Integer({
      default: 16384,
      minimum: 1,
      description: 'Open connections at most; more are closed as they arrive. Each sensor keeps its connection between check-ins, so the default carries 10,000 sensors (one Carbon Black server\'s fleet) with room for analysts and reconnects. Lowered at start to stay below the process\'s open-file limit.',
    }),
    listenBacklog: Type.Integer({
      default: 4096,
      minimum: 1,
      description: 'Connections the kernel holds for the server before it accepts them. Past it, a new connection\'s handshake is dropped and its client tries again only after 1, 3, 7, 15… s, so a fleet reconnecting at once (a restart, a busy second) would wait tens of seconds; Node\'s own 511 is a twentieth of 10,000 sensors. The kernel caps it at net.core.somaxconn.',
    }),
    maxConnectionsPerAddress: Type.Integer({
      default: 512,
      minimum: 1,
      description: 'Open connections from one remote address at most; raise it when many sensors reach the server through one NAT address or proxy (or `vigil simulate` runs more sensors than this from one host).',
    }),
    sessionIdleMinutes: Type.Integer({
      default: 30,
      minimum: 1,
      description: 'A console session (POST /api/auth/login) not used for this long ends; use is noted at most once a minute.',
    }),
    sessionMaxHours: Type.Integer({
      default: 12,
      minimum: 1,
      description: 'A console session ends this long after its login, however much it is used.',
    }),
    loginBackoffMaxSeconds: Type.Integer({
      default: 900,
      minimum: 1,
      description: 'Longest wait imposed after failed logins (for one username, or from one address); the wait doubles with each failure past the third, up to this.',
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
    liveResponseEnabled: Type.Boolean({
      default: true,
      description: 'Serve live response (/api/v1/cblr, global administrators only); when false those routes answer 412, as Carbon Black did with CbLREnabled off.',
    }),
    liveResponseCheckinSeconds: Type.Integer({
      default: 2,
      minimum: 1,
      description: 'Check-in interval a sensor is told to keep while it has a live-response session open, so that commands reach it promptly.',
    }),
    liveResponseCheckinTimeoutSeconds: Type.Integer({
      default: 1200,
      minimum: 1,
      description: 'A session times out when its sensor has not attached, or has not checked in, for this long (check_in_timeout).',
    }),
    liveResponseSessionTimeoutSeconds: Type.Integer({
      default: 300,
      minimum: 1,
      description: 'An active session times out after this long without API use (session_timeout); keepalive resets it.',
    }),
    liveResponseCommandTimeoutSeconds: Type.Integer({
      default: 120,
      minimum: 1,
      description: 'A command the sensor has not answered this long after it could have received it ends in error (sensor_wait_timeout).',
    }),
    liveResponseFileLimitBytes: Type.Integer({
      default: 256 * 1024 * 1024,
      minimum: 1024,
      description: 'Largest file a live-response session takes, fetched from an endpoint or uploaded by an analyst.',
    }),
    liveResponseStorageTtlDays: Type.Integer({
      default: 7,
      minimum: 1,
      description: 'Days a session\'s files are kept after it was created (storage_ttl).',
    }),
    searchWorkers: Type.Integer({
      default: 2,
      minimum: 1,
      maximum: 64,
      description: 'Threads that run searches, each with its own read-only connection to the embedded store.',
    }),
    searchThreadNice: Type.Integer({
      default: 10,
      minimum: 0,
      maximum: 19,
      description: 'How much nicer than the server process the threads that run searches on the embedded store are (Linux; elsewhere ignored), so that on a busy machine ingest keeps its rate and searches take the CPU it leaves (0: the same priority).',
    }),
    searchCacheMb: Type.Integer({
      default: 16,
      minimum: 1,
      description: 'Page cache of a search connection to the embedded store while a search runs on it, in MB (its pages beyond the mapped file); a connection lets its pages go between searches.',
    }),
    searchHeapMb: Type.Integer({
      // The search threads keep 10–30 MB live in bench/soak; a page of 10,000 segments is tens of MB.
      default: 512,
      minimum: 64,
      description: 'The most each search thread of the embedded store may keep in its JavaScript heap, in MB. Past it the thread stops, its searches in flight fail and a new thread takes its place.',
    }),
    searchMmapMb: Type.Integer({
      default: 16_384,
      minimum: 0,
      description: 'How much of the embedded store\'s file the search connections read through a memory mapping, in MB (0: none). Mapped pages count in the server\'s RSS but are the kernel\'s page cache, given back under memory pressure.',
    }),
    sqlitePageCacheMb: Type.Integer({
      default: 64,
      minimum: 1,
      description: 'Page cache, in MB, of each of the embedded store\'s read-write connections: the request thread\'s, the event writer\'s, the forwarder\'s and the bulk alert changes\'.',
    }),
    sqliteWalLimitMb: Type.Integer({
      default: 1_024,
      minimum: 1,
      description: 'Size, in MB, past which the embedded store\'s write-ahead log is started over: the event writer copies it back between two commits and searches keep no snapshot between their pages until it has been; past four times this size it is emptied by force, the writer waiting up to ten seconds for searches in flight.',
    }),
    ingestProcessCacheEntries: Type.Integer({
      default: 200_000,
      minimum: 1,
      description: 'Recently active processes whose state (row, open segment) the event writer keeps in memory, about 600 bytes each; the least recently active are forgotten first and read back from the store when they send again.',
    }),
    ingestTermCacheEntries: Type.Integer({
      default: 500_000,
      minimum: 2,
      description: 'Search terms (event values) whose dictionary ids the event writer keeps in memory; a term not held is looked up in the store.',
    }),
    ingestWriterHeapMb: Type.Integer({
      // The writer keeps ~200 MB live at the default cache bounds (bench/RESULTS.md, bench/soak);
      // under Node's default limit V8 let its heap grow to 2–3 times that (ADR 0039).
      default: 512,
      minimum: 64,
      description: 'The most the event writer\'s thread may keep in its JavaScript heap, in MB: its caches (ingestProcessCacheEntries, ingestTermCacheEntries) and the batches of a commit must fit; a lower value keeps its heap nearer what it holds, at the cost of more frequent garbage collection. Past it the writer stops and ingest fails until the server is restarted.',
    }),
    searchTimeLimitMs: Type.Integer({
      default: 30_000,
      minimum: 1,
      description: 'A search (or a large event read) still running after this long is stopped and answered 504 query_timeout.',
    }),
    databaseLockWaitMs: Type.Integer({
      default: 10_000,
      minimum: 1,
      description: 'How long a write waits for the embedded database\'s write lock (held by the event writer\'s commits, a bulk change, another process) before the request is answered 503 with Retry-After.',
    }),
    sysmonReaderThreads: Type.Integer({
      default: 1,
      minimum: 0,
      maximum: 16,
      description: 'Threads that read Sysmon `_bulk` bodies (decompress, parse, map) beside the request thread; 0 reads them on it.',
    }),
    ingestMaxEventsPerCommit: Type.Integer({
      // Index pages a commit dirties are shared by its batches: 16 batches of 2,000 events per
      // commit write a fifth fewer bytes per event than 10 (bench/RESULTS.md, bench/ingest).
      default: 32_000,
      minimum: 1,
      description: 'Events per ingest transaction at most; bounds how long one commit makes the uploads behind it (and other writers) wait.',
    }),
    feedDownloadLimitBytes: Type.Integer({
      default: 128 * 1024 * 1024,
      minimum: 1024,
      description: 'Largest threat feed a synchronization downloads (after decompression); a larger one is refused.',
    }),
    partitionRolloverDays: Type.Number({
      default: 3,
      exclusiveMinimum: 0,
      description: 'Age at which the hot event partition rolls over to a warm one and a new hot partition begins (Carbon Black: every 3 days).',
    }),
    partitionMaxBytes: Type.Integer({
      default: 32 * 1024 ** 3,
      minimum: 0,
      description: 'Event data in the hot partition at which it rolls over before its time (0: no size limit).',
    }),
    retentionMaxAgeDays: Type.Number({
      default: 30,
      minimum: 0,
      description: 'Partitions that stopped taking events longer ago than this are deleted, oldest first (0: kept whatever their age).',
    }),
    storageMaxDiskShare: Type.Number({
      default: 0.9,
      exclusiveMinimum: 0,
      maximum: 1,
      description: 'Share of the data dir\'s file system in use (free pages inside the database count as free) at which the oldest partitions are deleted, whole, one at a time; never the hot one.',
    }),
    storageWarnDiskShare: Type.Number({
      default: 0.85,
      exclusiveMinimum: 0,
      maximum: 1,
      description: 'Share of the disk in use at which the server warns (log and storage_warning in /api/info), before it has to delete anything.',
    }),
    storageCheckSeconds: Type.Integer({
      default: 60,
      minimum: 1,
      description: 'How often rollover and retention are checked.',
    }),
    jobLeaseSeconds: Type.Integer({
      default: 60,
      minimum: 1,
      description: 'How long a scheduled job (watchlist passes, feed synchronization, rollover and retention) stays with the server running it without renewal: the longest the other servers on the database wait to take over the job of a server that died. Renewed every third of it, so an event-loop pause shorter than two thirds of it keeps the job (docs/adr/0022-jobs-across-servers.md).',
    }),
    detectionMatcherEnabled: Type.Boolean({
      default: true,
      description: 'Run watchlists and feed IOCs against the data as it arrives and on schedule. Off, nothing is matched (hits are recorded only through the detection sink: a server kept for search alone, or tests of the sink).',
    }),
    detectionCoalesceMs: Type.Integer({
      default: 200,
      minimum: 0,
      maximum: 900,
      description: 'How long after an ingest commit the detection matcher waits for more commits before matching them together against the watchlists and feed IOCs (hits are recorded within a second of the commit).',
    }),
    watchlistIntervalMinutes: Type.Integer({
      default: 10,
      minimum: 1,
      description: 'How often every watchlist and feed query runs over the data written since its last run (the catch-up pass; it also runs at start and when a watchlist or feed changes).',
    }),
    feedSyncIntervalMinutes: Type.Integer({
      default: 60,
      minimum: 1,
      description: 'How often every enabled feed is downloaded again and fully synchronized.',
    }),
    feedDownloadTimeoutSeconds: Type.Integer({
      default: 60,
      minimum: 1,
      description: 'How long a feed download may take, start to end, before it is abandoned.',
    }),
    smtpUrl: Type.Optional(Type.String({
      pattern: '^smtps?://',
      description: 'SMTP server that sends the email actions of watchlists and feeds: smtps://user:password@host:465 (TLS from the start) or smtp://user:password@host:587 (STARTTLS when the server offers it; ?starttls=required refuses to send without it). Percent-encode special characters of the user and password.',
    })),
    smtpFrom: Type.String({ default: 'vigil@localhost', minLength: 3, description: 'From address of the notification emails.' }),
    syslogUrl: Type.Optional(Type.String({
      minLength: 1,
      description: 'Syslog receivers of the syslog actions, comma-separated: udp://host:514, tcp://host:601, tls://host:6514; RFC 5424 messages unless the URL ends ?format=rfc3164.',
    })),
    webhookUrl: Type.Optional(Type.String({
      pattern: '^https?://',
      description: 'URL the HTTP POST actions send each alert to, as JSON, signed in X-Vigil-Signature (sha256=HMAC-SHA256 of the body with webhookSecret, hex).',
    })),
    webhookSecret: Type.Optional(Type.String({ minLength: 16, description: 'Key of the webhook\'s HMAC signature (at least 16 characters); required with webhookUrl.' })),
    notificationCaFile: Type.Optional(Type.String({
      minLength: 1,
      description: 'PEM file of certificate authorities trusted, beside the system\'s, by the SMTP, syslog TLS and webhook connections (a private CA or a receiver\'s self-signed certificate).',
    })),
    notificationTimeoutSeconds: Type.Number({
      default: 10,
      exclusiveMinimum: 0,
      description: 'How long one delivery of a notification (connect, send, answer) may take before it counts as failed and is retried.',
    }),
    notificationMaxAttempts: Type.Integer({
      default: 10,
      minimum: 1,
      description: 'Deliveries tried per notification and channel before it is given up as failed.',
    }),
    notificationRetrySeconds: Type.Number({
      default: 5,
      exclusiveMinimum: 0,
      description: 'Wait before the first retry of a failed delivery; each further retry waits twice as long, up to an hour.',
    }),
    forwarderEnabled: Type.Boolean({
      default: true,
      description: 'Run the event forwarder\'s outputs (configured at /api/v1/forwarder/outputs, docs/forwarder.md). Off, outputs can be configured but nothing is sent from this server.',
    }),
    forwarderPollMs: Type.Integer({
      default: 1000,
      minimum: 50,
      description: 'How often each forwarder output looks for records after its cursor, when it has caught up.',
    }),
    forwarderBatchSize: Type.Integer({
      default: 2000,
      minimum: 1,
      maximum: 100000,
      description: 'Most records (raw events: event chunks) one forwarder delivery carries; a restart repeats at most one batch.',
    }),
    forwarderCommitHorizonMs: Type.Integer({
      default: 5000,
      minimum: 0,
      description: 'How far behind now the forwarder reads: records are forwarded once their server time is at least this old, so that a transaction committing late (several servers on PostgreSQL) is never skipped (docs/adr/0024-forwarder-cursors.md).',
    }),
    forwarderMaxBusyShare: Type.Number({
      default: 0.2,
      minimum: 0.01,
      maximum: 1,
      description: 'The most of a core the forwarder\'s thread works while outputs are behind: each output rests between batches so that the thread\'s work (not its waits for receivers, disks or locks) leaves ingest the rest (1: no rest). An output that cannot keep up at this share falls behind and catches up when ingest slows; its status shows the lag.',
    }),
    forwarderFileDir: Type.String({
      default: '',
      description: 'The directory file outputs of the forwarder write in: their paths are relative to it, so that the API cannot write files elsewhere. Empty: forwarder/ in the data dir.',
    }),
    forwarderServerName: Type.String({
      default: '',
      description: 'The cb_server and server_name of forwarded records (cb-event-forwarder\'s server_name); empty: the host name.',
    }),
  },
  { additionalProperties: false },
);

export type Config = Readonly<Static<typeof ConfigSchema>>;
