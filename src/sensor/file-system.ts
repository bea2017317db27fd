/**
 * What a simulated endpoint's disk holds, as far as live response can see it: the images and
 * modules its processes have used (their real bytes, so a fetched file hashes to the md5 events
 * reported) and files an analyst put there. Windows paths compare without case, as on Windows.
 */
import type { Os } from './catalog.js';

export interface DirectoryEntry {
  filename: string;
  attributes: string[];
  size: number;
  create_time: number;
  last_access_time: number;
  last_write_time: number;
}

interface StoredFile {
  path: string;
  content: Buffer;
  /** Epoch seconds. */
  writtenS: number;
}

export class FileSystem {
  private readonly files = new Map<string, StoredFile>();
  private readonly separator: string;

  constructor(private readonly os: Os) {
    this.separator = os === 'windows' ? '\\' : '/';
  }

  /** The drives (or the root) a live-response session shows. */
  get drives(): string[] {
    return this.os === 'windows' ? ['C:\\'] : ['/'];
  }

  write(path: string, content: Buffer, writtenMs: number): void {
    this.files.set(this.key(path), { path, content, writtenS: Math.floor(writtenMs / 1000) });
  }

  read(path: string): Buffer | undefined {
    return this.files.get(this.key(path))?.content;
  }

  /**
   * The entries of a directory, as a Carbon Black sensor lists them: `.` and `..`, then its
   * subdirectories and files. cbapi asks for "dir\" or "dir\*"; undefined when nothing is there.
   */
  list(directory: string, nowMs: number): DirectoryEntry[] | undefined {
    const prefix = this.key(directory.replace(/[\\/]\*$/, '').replace(/[\\/]+$/, '') + this.separator);
    const nowS = Math.floor(nowMs / 1000);
    const entries = new Map<string, DirectoryEntry>();
    for (const [key, file] of this.files) {
      if (!key.startsWith(prefix)) continue;
      const rest = file.path.slice(prefix.length);
      const cut = rest.indexOf(this.separator);
      const name = cut < 0 ? rest : rest.slice(0, cut);
      if (entries.has(name.toLowerCase())) continue;
      entries.set(name.toLowerCase(), cut < 0
        ? { filename: name, attributes: ['ARCHIVE'], size: file.content.length, ...times(file.writtenS) }
        : { filename: name, attributes: ['DIRECTORY'], size: 0, ...times(nowS) });
    }
    if (entries.size === 0) return undefined;
    const dot = (filename: string): DirectoryEntry => ({ filename, attributes: ['DIRECTORY'], size: 0, ...times(nowS) });
    return [dot('.'), dot('..'), ...[...entries.values()].sort((a, b) => a.filename.localeCompare(b.filename))];
  }

  private key(path: string): string {
    return this.os === 'windows' ? path.toLowerCase() : path;
  }
}

function times(seconds: number): Pick<DirectoryEntry, 'create_time' | 'last_access_time' | 'last_write_time'> {
  return { create_time: seconds, last_access_time: seconds, last_write_time: seconds };
}
