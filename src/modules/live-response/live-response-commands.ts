/**
 * Rules for commands: what a command needs before it is queued, what the sensor is sent, and how
 * a sensor's answer becomes the command's outcome. Sensors are not trusted: an answer that does
 * not match the protocol ends the command in error, and only the output keys of the command's own
 * kind are kept (a process list cannot rewrite a command's id or status).
 */
import { Value } from '@sinclair/typebox/value';
import { InvalidRequestError } from '../../domain/errors.js';
import {
  COMMAND_OPTION_NAMES, CommandResult,
  type CommandCreateBody, type CommandInstruction, type CommandName, type CommandOutput,
} from './live-response.schemas.js';
import type { CommandOutcome, CommandRecord, CommandRequest } from './live-response.store.js';

/** HRESULT E_FAIL: what a command's error says when the sensor's answer made no sense. */
const E_FAIL = 0x80004005;

/** The outcome given to commands that time out, and to those left pending when their session times out. */
export const TIMED_OUT: CommandOutcome = {
  // HRESULT_FROM_WIN32(ERROR_TIMEOUT): cbapi decodes it for the user.
  resultCode: 0x800705b4, resultType: 'WinHresult', resultDesc: 'The sensor did not answer in time', output: {},
};

const OUTPUT_KEYS: Record<CommandName, readonly (keyof CommandOutput)[]> = {
  'process list': ['processes'],
  'directory list': ['files'],
  'reg enum key': ['values', 'sub_keys'],
  'reg query value': ['value'],
  'create process': ['pid', 'return_code'],
  memdump: ['complete', 'percentdone', 'dumping', 'compressing', 'return_code'],
  kill: [],
  'get file': [],
  'put file': [],
  'delete file': [],
  'create directory': [],
  'reg create key': [],
  'reg delete key': [],
  'reg set value': [],
  'reg delete value': [],
};

/** The command's object and options as they will be kept and sent; InvalidRequestError naming what is wrong. */
export function commandRequest(body: CommandCreateBody): CommandRequest {
  const options: Record<string, unknown> = {};
  for (const name of COMMAND_OPTION_NAMES) if (body[name] !== undefined) options[name] = body[name];
  if (body.name === 'process list') return { options };
  if (body.object === undefined || body.object === '') throw new InvalidRequestError(`object: required for "${body.name}"`);
  if (body.name === 'kill') {
    if (!/^\d{1,10}$/.test(String(body.object))) throw new InvalidRequestError(`object: "kill" takes a process id, not ${JSON.stringify(body.object)}`);
    return { object: Number(body.object), options };
  }
  if (body.name === 'put file' && body.file_id === undefined) throw new InvalidRequestError('file_id: "put file" sends a file uploaded to the session first');
  return { object: String(body.object), options };
}

/** The payload of the live_response instruction that carries the command to its sensor. */
export function instructionOf(command: CommandRecord): CommandInstruction {
  return {
    ...command.request.options,
    session_id: command.sessionId,
    command_id: command.id,
    name: command.name,
    ...(command.request.object !== undefined ? { object: command.request.object } : {}),
    ...(command.fileId !== null ? { file_id: command.fileId } : {}),
  };
}

/** How the sensor's answer ends the command. */
export function outcomeOf(name: CommandName, result: unknown): { status: 'complete' | 'error'; outcome: CommandOutcome } {
  if (!Value.Check(CommandResult, result)) {
    return { status: 'error', outcome: failure('The sensor sent a malformed result') };
  }
  const output: Record<string, unknown> = {};
  for (const key of OUTPUT_KEYS[name]) if (result[key] !== undefined) output[key] = result[key];
  return {
    status: result.status,
    outcome: {
      resultCode: result.result_code ?? (result.status === 'complete' ? 0 : E_FAIL),
      resultType: result.result_type ?? 'WinHresult',
      resultDesc: result.result_desc ?? '',
      output: output as CommandOutput,
    },
  };
}

export function failure(description: string): CommandOutcome {
  return { resultCode: E_FAIL, resultType: 'WinHresult', resultDesc: description, output: {} };
}
