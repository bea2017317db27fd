/**
 * A simulated sensor's live response (docs/sensor-protocol.md): it attaches to sessions and
 * answers process list (its running processes), directory list and get file (its file system),
 * put file (written there), and kill (the process ends, and its process_end follows in the event
 * stream). Live response is the channel isolation leaves open, so it answers whether or not the
 * host is isolated. Errors carry the HRESULTs a Windows sensor reports.
 */
import { processId, unknownParentId } from '../domain/process-id.js';
import type { AttachResult, CommandInstruction, CommandResult } from '../modules/live-response/live-response.schemas.js';
import type { SensorClient } from './client.js';
import type { Endpoint } from './endpoint.js';

export const SIMULATED_COMMANDS = ['process list', 'directory list', 'get file', 'put file', 'kill'];

const HRESULT = {
  fileNotFound: 0x80070002,
  pathNotFound: 0x80070003,
  accessDenied: 0x80070005,
  invalidParameter: 0x80070057,
  notImplemented: 0x80004001,
  failed: 0x80004005,
} as const;

const COMPLETE: CommandResult = { status: 'complete', result_code: 0, result_type: 'WinHresult', result_desc: '' };

function error(code: number, description: string): CommandResult {
  return { status: 'error', result_code: code, result_type: 'WinHresult', result_desc: description };
}

export class LiveResponder {
  constructor(
    private readonly client: SensorClient,
    private readonly endpoint: Endpoint,
  ) {}

  /** The answer to live_response_session: what this sensor runs, and where a session starts. */
  attach(): AttachResult {
    const windows = this.endpoint.os === 'windows';
    return {
      supported_commands: SIMULATED_COMMANDS,
      drives: this.endpoint.files.drives,
      current_working_directory: windows ? 'C:\\Windows\\CarbonBlack' : '/var/lib/cb',
    };
  }

  /** The answer to a live_response instruction. */
  async run(command: CommandInstruction): Promise<CommandResult> {
    const object = command.object === undefined ? '' : String(command.object);
    switch (command.name) {
      case 'process list': return { ...COMPLETE, processes: this.processes() };
      case 'kill': return this.kill(Number(object));
      case 'directory list': {
        const files = this.endpoint.files.list(object, this.endpoint.sensorTime(Date.now()));
        return files ? { ...COMPLETE, files } : error(HRESULT.pathNotFound, `no such directory: ${object}`);
      }
      case 'get file': return this.getFile(object, command.file_id);
      case 'put file': return this.putFile(object, command.file_id);
      default: return error(HRESULT.notImplemented, `${command.name} is not supported by this sensor`);
    }
  }

  private processes(): NonNullable<CommandResult['processes']> {
    const sensorId = this.client.credentials!.sensorId;
    return this.endpoint.processes().map((proc) => ({
      pid: proc.pid,
      parent: proc.parent?.pid ?? 0,
      parent_guid: proc.parent ? processId({ sensorId, pid: proc.parent.pid, startMs: proc.parent.start }) : unknownParentId(sensorId),
      proc_guid: processId({ sensorId, pid: proc.pid, startMs: proc.start }),
      path: proc.path,
      command_line: proc.cmdline,
      create_time: Math.floor(proc.start / 1000),
      sid: proc.uid ?? '',
      username: proc.username,
    }));
  }

  private kill(pid: number): CommandResult {
    const outcome = this.endpoint.kill(pid);
    if (outcome === 'killed') return COMPLETE;
    return outcome === 'denied' ? error(HRESULT.accessDenied, `process ${pid} may not be ended`) : error(HRESULT.invalidParameter, `no process ${pid}`);
  }

  /** The content goes up first; the acknowledgement says it is there. */
  private async getFile(path: string, fileId: number | undefined): Promise<CommandResult> {
    const content = this.endpoint.files.read(path);
    if (!content) return error(HRESULT.fileNotFound, `no such file: ${path}`);
    try {
      await this.client.uploadLiveResponseFile(fileId!, content);
    } catch (failure) {
      return error(HRESULT.failed, `upload failed: ${(failure as Error).message}`);
    }
    return COMPLETE;
  }

  private async putFile(path: string, fileId: number | undefined): Promise<CommandResult> {
    try {
      this.endpoint.files.write(path, await this.client.downloadLiveResponseFile(fileId!), this.endpoint.sensorTime(Date.now()));
    } catch (failure) {
      return error(HRESULT.failed, `download failed: ${(failure as Error).message}`);
    }
    return COMPLETE;
  }
}
