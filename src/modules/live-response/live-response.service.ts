/**
 * Live response for analysts (reference admin §7), as cbapi drives it: open a session on a
 * sensor, wait for it to turn active, post commands and read them until they finish, fetch the
 * files they bring back, keep the session alive, close it. Sessions and commands reach the sensor
 * as instructions at its check-ins (live-response-checkin.ts carries the answers back). Only
 * global administrators use live response, as in Carbon Black 6.x; with it switched off every
 * call answers 412.
 *
 * A sensor has at most one open session; asking for another returns it. A session that timed
 * out is gone (404), as Carbon Black answered for a session never established; a closed one
 * still reads, with status "close". 404s about sessions and sensors are plain text starting with
 * "Session" or "Sensor", which cbapi reads to open a fresh session and retry.
 */
import type { Readable } from 'node:stream';
import { ConflictError, InvalidRequestError, NotFoundError, PreconditionFailedError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import type { SensorRecord } from '../sensors/sensors.store.js';
import type { CommandWaiters } from './command-waiters.js';
import { storeLimited } from './file-transfers.js';
import { commandRequest, instructionOf } from './live-response-commands.js';
import type { InstructionQueue, LiveResponseExpiry } from './live-response-expiry.js';
import type { LiveResponseContent } from './live-response-files.js';
import { commandWire, fileWire, sessionWire, type SessionSettings } from './live-response-wire.js';
import type { Command, CommandCreateBody, Session, SessionFile, SessionUpdateBody } from './live-response.schemas.js';
import type { LiveResponseStore, SessionRecord } from './live-response.store.js';

/** Anything that can read a sensor record (the sensors store). */
export interface SensorDirectory {
  get(id: number): Promise<SensorRecord | undefined>;
}

export interface LiveResponseSettings extends SessionSettings {
  enabled: boolean;
}

const OPEN = new Set(['pending', 'active']);

export class LiveResponseService {
  constructor(
    private readonly store: LiveResponseStore,
    private readonly sensors: SensorDirectory,
    private readonly queue: InstructionQueue,
    private readonly expiry: LiveResponseExpiry,
    private readonly files: LiveResponseContent,
    private readonly waiters: CommandWaiters,
    private readonly settings: LiveResponseSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The sensor's open session, or a new one that waits for the sensor to attach at its next check-in. */
  async create(actor: Principal, sensorId: number): Promise<Session> {
    const now = await this.begin(actor);
    const sensor = await this.sensors.get(sensorId);
    if (!sensor) throw new NotFoundError(`Sensor ${sensorId} not found`, true);
    if (sensor.uninstalledMs !== null) throw new ConflictError(`Sensor ${sensorId} is uninstalled`);
    if (sensor.agent === 'sysmon') throw new ConflictError(`Sensor ${sensorId} is a Sysmon host, which has no agent to run live response`);
    const { session, created } = await this.store.openSession({ sensorId, userId: actor.userId, username: actor.username, nowMs: now });
    if (created) {
      const instructionId = await this.queue.enqueueInstruction(sensorId, 'live_response_session', { session_id: session.id }, now);
      await this.store.setSessionInstruction(session.id, instructionId);
    }
    return this.wire(session, sensor);
  }

  async list(actor: Principal, openOnly: boolean): Promise<Session[]> {
    await this.begin(actor);
    const sessions = await this.store.listSessions(openOnly);
    const sensors = new Map<number, SensorRecord | undefined>();
    for (const { sensorId } of sessions) if (!sensors.has(sensorId)) sensors.set(sensorId, await this.sensors.get(sensorId));
    return sessions.map((session) => this.wire(session, sensors.get(session.sensorId)));
  }

  async get(actor: Principal, sessionId: number): Promise<Session> {
    const now = await this.begin(actor);
    return this.wireOf(await this.used(sessionId, now));
  }

  /** Closes the session when asked for status "close" (a session that has ended stays as it is); its current status changes nothing. */
  async update(actor: Principal, sessionId: number, body: SessionUpdateBody): Promise<Session> {
    const now = await this.begin(actor);
    const session = await this.existing(sessionId);
    if (body.status === session.status) return this.wireOf(session);
    if (body.status !== 'close') throw new InvalidRequestError(`status: a session can only be closed, not made ${body.status}`);
    if (!OPEN.has(session.status)) return this.wireOf(session);
    await this.expiry.withdraw((await this.store.endSession(sessionId, 'close', now)) ?? []);
    return this.wireOf(await this.existing(sessionId));
  }

  /** Keeps an open session from timing out while the client is idle. */
  async keepalive(actor: Principal, sessionId: number): Promise<Session> {
    const now = await this.begin(actor);
    return this.wireOf(this.open(await this.used(sessionId, now)));
  }

  /** Queues a command for the sensor; it stays pending until the sensor answers or its time is up. */
  async createCommand(actor: Principal, sessionId: number, body: CommandCreateBody): Promise<Command> {
    const now = await this.begin(actor);
    const session = this.open(await this.used(sessionId, now));
    if (body.session_id !== undefined && body.session_id !== sessionId) {
      throw new InvalidRequestError(`session_id: ${body.session_id} is not the session in the path (${sessionId})`);
    }
    if (session.attach && !session.attach.supportedCommands.includes(body.name)) {
      throw new InvalidRequestError(`name: command ${body.name} not supported by this sensor`);
    }
    const request = commandRequest(body);
    if (body.name === 'put file') await this.uploadedFile(sessionId, body.file_id!);
    const command = await this.store.createCommand(
      { sessionId, sensorId: session.sensorId, name: body.name, request, username: actor.username, fileId: body.file_id ?? null, nowMs: now },
      body.name === 'get file' ? String(request.object) : undefined,
    );
    const instructionId = await this.queue.enqueueInstruction(session.sensorId, 'live_response', instructionOf(command), now);
    await this.store.setCommandInstruction(command.id, instructionId);
    return commandWire(command);
  }

  async listCommands(actor: Principal, sessionId: number): Promise<Command[]> {
    const now = await this.begin(actor);
    await this.used(sessionId, now, true);
    return (await this.store.listCommands(sessionId)).map(commandWire);
  }

  /** The command; with `wait`, once it has finished or its time is up. */
  async getCommand(actor: Principal, sessionId: number, commandId: number, wait: boolean): Promise<Command> {
    let now = await this.begin(actor);
    await this.used(sessionId, now, true);
    let command = await this.store.getCommand(sessionId, commandId);
    if (!command) throw new NotFoundError(`Command ${commandId} not found in session ${sessionId}`);
    if (wait && command.status === 'pending') {
      const session = (await this.store.getSession(sessionId))!;
      // A command's time starts when its session can pass it on; on a session still pending, the
      // wait is the command's full time from now.
      const limitMs = this.expiry.limits.commandTimeoutMs;
      const startsMs = session.attachedMs === null ? now : Math.max(command.createdMs, session.attachedMs);
      await this.waiters.wait(commandId, startsMs + limitMs - now + 1);
      now = this.now();
      await this.expiry.run(now);
      command = (await this.store.getCommand(sessionId, commandId))!;
    }
    return commandWire(command);
  }

  async listFiles(actor: Principal, sessionId: number): Promise<SessionFile[]> {
    const now = await this.begin(actor);
    await this.used(sessionId, now, true);
    return (await this.store.listFiles(sessionId)).map(fileWire);
  }

  async getFile(actor: Principal, sessionId: number, fileId: number): Promise<SessionFile> {
    const now = await this.begin(actor);
    await this.used(sessionId, now, true);
    const file = await this.store.getFile(sessionId, fileId);
    if (!file) throw new NotFoundError(`File ${fileId} not found in session ${sessionId}`);
    return fileWire(file);
  }

  /** Stores a file an analyst uploads for a later put file command (cbapi's multipart field "file"). */
  async uploadFile(actor: Principal, sessionId: number, fileName: string, content: Readable): Promise<SessionFile> {
    const now = await this.begin(actor);
    this.open(await this.used(sessionId, now));
    const file = await this.store.createFile(sessionId, fileName, now);
    const size = await storeLimited(this.files, file.id, content);
    await this.store.fileArrived(file.id, size);
    return fileWire({ ...file, size });
  }

  /** A file's content, once it has arrived. */
  async fileContent(actor: Principal, sessionId: number, fileId: number): Promise<{ stream: Readable; size: number }> {
    const now = await this.begin(actor);
    await this.used(sessionId, now, true);
    const content = (await this.store.getFile(sessionId, fileId))?.size == null ? undefined : await this.files.open(fileId);
    if (!content) throw new NotFoundError(`File ${fileId} of session ${sessionId} has no content (yet)`);
    return content;
  }

  /** Every call: live response is on, the caller may use it, and what is past its time has timed out. */
  private async begin(actor: Principal): Promise<number> {
    if (!this.settings.enabled) throw new PreconditionFailedError('Live response is disabled on this server', 'live_response_disabled');
    requireGlobalAdmin(actor, 'use live response');
    const now = this.now();
    await this.expiry.run(now);
    return now;
  }

  /** The session, unless it never existed or timed out. */
  private async existing(sessionId: number): Promise<SessionRecord> {
    const session = await this.store.getSession(sessionId);
    if (!session) throw new NotFoundError(`Session ${sessionId} not found`, true);
    if (session.status === 'timeout') throw new NotFoundError(`Session ${sessionId} timed out`, true);
    return session;
  }

  /** The session, counting this call as use of it; `ended`: a timed-out one too (its commands and files still read). */
  private async used(sessionId: number, now: number, ended = false): Promise<SessionRecord> {
    const session = ended ? await this.store.getSession(sessionId) : await this.existing(sessionId);
    if (!session) throw new NotFoundError(`Session ${sessionId} not found`, true);
    await this.store.touch(sessionId, now);
    return session;
  }

  private open(session: SessionRecord): SessionRecord {
    if (!OPEN.has(session.status)) throw new NotFoundError(`Session ${session.id} is ${session.status === 'close' ? 'closed' : 'in error'}`, true);
    return session;
  }

  private async uploadedFile(sessionId: number, fileId: number): Promise<void> {
    const file = await this.store.getFile(sessionId, fileId);
    if (file?.size == null) throw new InvalidRequestError(`file_id: no file ${fileId} was uploaded to session ${sessionId}`);
  }

  private async wireOf(session: SessionRecord): Promise<Session> {
    return this.wire(session, await this.sensors.get(session.sensorId));
  }

  private wire(session: SessionRecord, sensor: SensorRecord | undefined): Session {
    return sessionWire(session, sensor, this.settings);
  }
}
