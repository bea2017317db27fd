/**
 * Live response in tests: the analyst's calls as cbapi makes them, and a sensor's side through the
 * real check-in endpoint (docs/sensor-protocol.md), one instruction at a time.
 */
import type { CheckinReply } from '../../src/modules/sensors/sensor-protocol.schemas.js';
import { as, type TestApp } from './app.js';
import { checkin, type TestSensor } from './sensors.js';

export const SESSION = '/api/v1/cblr/session';

export const SIMULATED_ATTACH = {
  supported_commands: ['process list', 'directory list', 'get file', 'put file', 'kill'],
  drives: ['C:\\'],
  current_working_directory: 'C:\\Windows\\CarbonBlack',
};

export type Instruction = CheckinReply['instructions'][number];

/** An analyst's call with a token (the bootstrap admin's unless given). */
export function lr(test: TestApp, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, token = test.adminToken) {
  return test.app.inject({ method, url, headers: as(token), ...(payload === undefined ? {} : { payload: payload as object }) });
}

/** The instructions of the given type that a check-in brings, and its reply. */
export async function instructionsOfType(test: TestApp, sensor: TestSensor, type: string, body: Parameters<typeof checkin>[2] = {}) {
  const reply = await checkin(test, sensor, body);
  return { reply, instructions: reply.instructions.filter((i) => i.type === type) };
}

/** Opens a session on the sensor and has the sensor attach at a check-in; the session's id. */
export async function activeSession(test: TestApp, sensor: TestSensor): Promise<number> {
  const created = await lr(test, 'POST', SESSION, { sensor_id: sensor.id });
  if (created.statusCode !== 200) throw new Error(`session: ${created.statusCode} ${created.body}`);
  const id = created.json().id as number;
  const { instructions } = await instructionsOfType(test, sensor, 'live_response_session');
  const open = instructions.find((i) => (i.payload as { session_id: number }).session_id === id);
  if (!open) throw new Error(`no live_response_session instruction for session ${id}`);
  await checkin(test, sensor, { completed: [{ id: open.id, result: SIMULATED_ATTACH }] });
  return id;
}

/** Posts a command and has the sensor receive it at a check-in; the command and its instruction. */
export async function deliveredCommand(test: TestApp, sensor: TestSensor, sessionId: number, body: Record<string, unknown>) {
  const posted = await lr(test, 'POST', `${SESSION}/${sessionId}/command`, { session_id: sessionId, ...body });
  if (posted.statusCode !== 200) throw new Error(`command: ${posted.statusCode} ${posted.body}`);
  const command = posted.json();
  const { instructions } = await instructionsOfType(test, sensor, 'live_response');
  const instruction = instructions.find((i) => (i.payload as { command_id: number }).command_id === command.id);
  if (!instruction) throw new Error(`command ${command.id} was not delivered`);
  return { command, instruction };
}
