/** Content kept in files beside the database (binaries, live-response files). */
import type { ReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * A stream of the file and its size, or undefined when there is no such file. The file is opened
 * before this resolves, so the stream cannot miss it later; the stream closes it.
 */
export async function openContent(path: string): Promise<{ stream: ReadStream; size: number } | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    return { stream: handle.createReadStream(), size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
