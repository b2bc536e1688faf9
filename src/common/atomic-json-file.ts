import { mkdirSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * A JSON file under DATA_DIR replaced atomically: write a temporary file, fsync it, rename it over the
 * old one, fsync the directory, so a crash leaves either the old content or the new, never a torn
 * file. Saves are serialized in call order, so the file always ends with the latest value.
 */
export class AtomicJsonFile {
  private tail: Promise<void> = Promise.resolve();
  private sequence = 0;

  constructor(readonly path: string) {}

  /** The parsed content; undefined when there is no file yet (the directory is created then). */
  read(): unknown {
    mkdirSync(dirname(this.path), { recursive: true });
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return JSON.parse(text) as unknown;
  }

  save(value: unknown): Promise<void> {
    const text = JSON.stringify(value, null, 2);
    const temporary = `${this.path}.${process.pid}.${++this.sequence}.tmp`;
    const write = this.tail.then(() => this.replace(temporary, text));
    this.tail = write.catch(() => undefined); // a failed save fails its caller, not the next save
    return write;
  }

  private async replace(temporary: string, text: string): Promise<void> {
    const file = await open(temporary, 'w');
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, this.path);
    const directory = await open(dirname(this.path), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  }
}
