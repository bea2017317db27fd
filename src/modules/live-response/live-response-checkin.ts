/**
 * Live response's part in a sensor's check-in (docs/sensor-protocol.md). The sensor's
 * acknowledgements attach its pending session (active, with the commands it offers) and finish
 * its commands with their results; then what is past its time times out, before the reply reads
 * the sensor's instructions. While the sensor has a session open, the reply asks it to check in
 * again after the short live-response interval, so commands reach it in seconds rather than at
 * its usual pace; once the session ends, the next reply gives the usual interval back.
 *
 * A sensor without an open session costs one read.
 */
import { Value } from '@sinclair/typebox/value';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import type { CheckinAsk, CompletedInstruction } from '../sensors/sensors.service.js';
import type { CommandWaiters } from './command-waiters.js';
import { failure, outcomeOf } from './live-response-commands.js';
import type { LiveResponseExpiry } from './live-response-expiry.js';
import { AttachResult } from './live-response.schemas.js';
import type { CommandRecord, LiveResponseStore, SessionRecord } from './live-response.store.js';

export class LiveResponseCheckin {
  constructor(
    private readonly store: LiveResponseStore,
    private readonly expiry: LiveResponseExpiry,
    private readonly waiters: CommandWaiters,
    private readonly checkinSeconds: number,
  ) {}

  async checkin(sensor: SensorIdentity, completed: readonly CompletedInstruction[], nowMs: number): Promise<CheckinAsk> {
    const open = await this.store.openSessionsOf(sensor.id);
    if (open.length === 0) return {};
    await this.store.sensorSeen(sensor.id, nowMs);
    const results = new Map(completed.map(({ id, result }) => [id, result]));
    for (const session of open) {
      if (session.status === 'pending' && session.instructionId !== null && results.has(session.instructionId)) {
        await this.attach(session, results.get(session.instructionId), nowMs);
      }
    }
    for (const command of await this.store.pendingCommandsByInstruction(sensor.id, [...results.keys()])) {
      await this.finish(command, results.get(command.instructionId!), nowMs);
    }
    await this.expiry.run(nowMs, sensor.id);
    const stillOpen = await this.store.openSessionsOf(sensor.id);
    return stillOpen.length > 0 ? { nextCheckinSeconds: this.checkinSeconds } : {};
  }

  /** The sensor attached (active), or said it cannot, or answered nonsense (error). */
  private async attach(session: SessionRecord, result: unknown, nowMs: number): Promise<void> {
    if (Value.Check(AttachResult, result) && 'supported_commands' in result) {
      await this.store.attach(session.id, {
        supportedCommands: result.supported_commands,
        drives: result.drives ?? [],
        currentWorkingDirectory: result.current_working_directory ?? '',
      }, nowMs);
      return;
    }
    await this.expiry.withdraw((await this.store.endSession(session.id, 'error', nowMs)) ?? []);
  }

  private async finish(command: CommandRecord, result: unknown, nowMs: number): Promise<void> {
    let { status, outcome } = outcomeOf(command.name, result);
    if (status === 'complete' && command.name === 'get file' && command.fileId !== null) {
      const file = await this.store.getFile(command.sessionId, command.fileId);
      if (file?.size == null) ({ status, outcome } = { status: 'error', outcome: failure('The sensor reported the file sent, but its content never arrived') });
    }
    if (await this.store.finishCommand(command.id, status, outcome, nowMs)) await this.waiters.finishedHere(command.id);
  }
}
