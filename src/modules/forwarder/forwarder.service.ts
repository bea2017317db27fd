/**
 * The forwarder's outputs for global administrators: saved, checked, tested and watched. Saving
 * checks what can be checked offline (forwarder-outputs.ts); `test` sends one record through the
 * output as saved or proposed and answers the receiver's error as a 400. A change here tells
 * this server's runner at once; other servers find it at their next look.
 */
import { InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { formatRecordTime } from '../../domain/record-time.js';
import type { ForwarderRunner } from './forwarder-runner.js';
import { buildOutput, checkDefinition, eventsOf, outputSources, type SourceSet } from './forwarder-outputs.js';
import type { Output, OutputBody, OutputStatus } from './forwarder.schemas.js';
import type { ForwarderStore, OutputDefinition, OutputRecord } from './forwarder.store.js';
import { describeError } from './outputs/output.js';

const HIDDEN = '********';
const SETTING_KEYS = [
  'path', 'rotate_bytes', 'rotate_seconds', 'url', 'ca_cert', 'insecure_skip_verify', 'timeout_seconds', 'splunk_token', 'sourcetype', 'headers',
] as const;
const EVENT_KEYS = ['events_alert', 'events_watchlist', 'events_feed', 'events_binary_observed', 'events_sensor', 'events_raw_sensor'] as const;

export class ForwarderService {
  constructor(
    private readonly store: ForwarderStore,
    private readonly sources: SourceSet,
    private readonly runner: Pick<ForwarderRunner, 'sync'> | undefined,
    /** Where file outputs write (forwarderFileDir). */
    private readonly fileDir: string,
    private readonly now: () => number = Date.now,
  ) {}

  async list(actor: Principal): Promise<Output[]> {
    requireGlobalAdmin(actor, 'manage the event forwarder');
    return (await this.store.list()).map(toWire);
  }

  async get(actor: Principal, id: number): Promise<Output> {
    requireGlobalAdmin(actor, 'manage the event forwarder');
    return toWire(await this.existing(id));
  }

  async create(actor: Principal, body: OutputBody): Promise<Output> {
    requireGlobalAdmin(actor, 'manage the event forwarder');
    const created = await this.store.create(this.definitionOf(body), this.now());
    void this.runner?.sync();
    return toWire(created);
  }

  async update(actor: Principal, id: number, body: OutputBody): Promise<Output> {
    requireGlobalAdmin(actor, 'manage the event forwarder');
    const before = await this.existing(id);
    if (!(await this.store.update(id, this.definitionOf(body, before), this.now()))) throw new NotFoundError(`No forwarder output ${id}`);
    void this.runner?.sync();
    return toWire(await this.existing(id));
  }

  async remove(actor: Principal, id: number): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'manage the event forwarder');
    if (!(await this.store.remove(id))) throw new NotFoundError(`No forwarder output ${id}`);
    void this.runner?.sync();
    return { result: 'success' };
  }

  async status(actor: Principal, id: number): Promise<OutputStatus> {
    requireGlobalAdmin(actor, 'manage the event forwarder');
    const output = await this.existing(id);
    const cursors = new Map((await this.store.cursors(id)).map((cursor) => [cursor.source, cursor]));
    const sources = await Promise.all(outputSources(eventsOf(output), this.sources).map(async ([name, source]) => {
      const cursor = cursors.get(name);
      const positionMs = Number(cursor?.position[0] ?? output.createdMs);
      const newest = await source.newestMs();
      return {
        source: name,
        forwarded: cursor?.forwarded ?? 0,
        cursor_time: cursor === undefined ? null : formatRecordTime(positionMs),
        lag_seconds: newest === null ? 0 : Math.max(0, newest - positionMs) / 1000,
        last_success: cursor?.lastSuccessMs == null ? null : formatRecordTime(cursor.lastSuccessMs),
        last_error: cursor?.lastError ?? null,
        last_error_time: cursor?.lastErrorMs == null ? null : formatRecordTime(cursor.lastErrorMs),
      };
    }));
    return { id, name: output.name, enabled: output.enabled, healthy: sources.every((s) => s.last_error === null), sources };
  }

  /** Sends one test record through the saved output. */
  async testSaved(actor: Principal, id: number): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'manage the event forwarder');
    return this.sendTest(await this.existing(id));
  }

  /** Sends one test record through an output before it is saved. */
  async testProposed(actor: Principal, body: OutputBody): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'manage the event forwarder');
    return this.sendTest(this.definitionOf(body));
  }

  private async sendTest(definition: OutputDefinition): Promise<{ result: 'success' }> {
    const output = buildOutput(definition, this.fileDir);
    try {
      await output.send([{ type: 'vigil.forwarder.test', timestamp: this.now() / 1000, message: `Test record from Vigil's event forwarder output ${definition.name}` }]);
    } catch (error) {
      throw new InvalidRequestError(`The test record did not reach ${definition.name}: ${describeError(error)}`);
    } finally {
      await output.close();
    }
    return { result: 'success' };
  }

  /** A body as a checked definition; a hidden token sent back keeps the saved one. */
  private definitionOf(body: OutputBody, before?: OutputRecord): OutputDefinition {
    const definition = definitionOf(body, before);
    checkDefinition(definition, this.fileDir);
    return definition;
  }

  private async existing(id: number): Promise<OutputRecord> {
    const output = await this.store.get(id);
    if (output === undefined) throw new NotFoundError(`No forwarder output ${id}`);
    return output;
  }
}

/** A body as a definition; a hidden token sent back keeps the saved one. */
function definitionOf(body: OutputBody, before?: OutputRecord): OutputDefinition {
  const settings: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) if (body[key] !== undefined) settings[key] = body[key];
  if (settings.splunk_token === HIDDEN) settings.splunk_token = before?.settings.splunk_token;
  const sources: Record<string, unknown> = {};
  for (const key of EVENT_KEYS) if (body[key] !== undefined) sources[key] = body[key];
  return { name: body.name, enabled: body.enabled ?? true, kind: body.type, format: body.format ?? 'json', settings, sources };
}

function toWire(output: OutputRecord): Output {
  const settings = { ...output.settings };
  if (settings.splunk_token !== undefined) settings.splunk_token = HIDDEN;
  return {
    id: output.id, name: output.name, enabled: output.enabled, format: output.format, type: output.kind as Output['type'],
    ...settings, ...output.sources,
    created: new Date(output.createdMs).toISOString(), updated: new Date(output.updatedMs).toISOString(),
  };
}
