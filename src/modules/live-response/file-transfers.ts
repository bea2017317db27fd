/**
 * Files moving between a sensor and a session, over the sensor protocol: the content a get file
 * command fetches from the endpoint, and the content a put file command sends to it. A sensor may
 * move only the file of one of its own commands while that command is pending.
 */
import type { Readable } from 'node:stream';
import { ConflictError, DomainError, NotFoundError } from '../../domain/errors.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { ContentTooLargeError, type LiveResponseContent } from './live-response-files.js';
import type { LiveResponseStore } from './live-response.store.js';

export class FileTransfers {
  constructor(
    private readonly store: LiveResponseStore,
    private readonly files: LiveResponseContent,
  ) {}

  /** Stores what a get file command fetched; the sensor then acknowledges the command. */
  async receive(sensor: SensorIdentity, fileId: number, content: Readable): Promise<{ file_id: number; size: number }> {
    const transit = await this.store.fileInTransit(sensor.id, fileId);
    if (!transit) throw new NotFoundError(`No pending command of sensor ${sensor.id} fetches file ${fileId}`);
    if (transit.command.name !== 'get file') throw new ConflictError(`File ${fileId} is sent to the sensor, not fetched from it`);
    const size = await storeLimited(this.files, fileId, content);
    await this.store.fileArrived(fileId, size);
    return { file_id: fileId, size };
  }

  /** The content a put file command sends to the sensor. */
  async send(sensor: SensorIdentity, fileId: number): Promise<{ stream: Readable; size: number }> {
    const transit = await this.store.fileInTransit(sensor.id, fileId);
    const content = transit?.command.name === 'put file' ? await this.files.open(fileId) : undefined;
    if (!content) throw new NotFoundError(`No pending command of sensor ${sensor.id} sends file ${fileId}`);
    return content;
  }
}

/** Stores the content, refusing it with 413 past the file limit. */
export async function storeLimited(files: LiveResponseContent, fileId: number, content: Readable): Promise<number> {
  try {
    return await files.put(fileId, content);
  } catch (error) {
    if (error instanceof ContentTooLargeError) throw new DomainError('payload_too_large', `File content is ${error.message}`);
    throw error;
  }
}
