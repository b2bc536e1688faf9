import { mkdirSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { TopicInfo } from '@cohort/coordinator';

/**
 * The embedded topic registry's durable copy: one JSON file under DATA_DIR, replaced atomically (write a
 * temporary file, fsync it, rename it over the old one, fsync the directory), so a crash leaves either
 * the old registry or the new one, never a torn file. Saves are serialized in call order, so the file
 * always ends with the latest snapshot.
 */
export class TopicRegistryFile {
  private readonly path: string;
  private tail: Promise<void> = Promise.resolve();
  private sequence = 0;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'topics.json');
  }

  /** The saved topics; none on first start. A file that cannot be read stops the node rather than forget topics. */
  load(): TopicInfo[] {
    mkdirSync(dirname(this.path), { recursive: true });
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const parsed: unknown = JSON.parse(text);
    if (!isTopicFile(parsed)) throw new Error(`${this.path} is not a topic registry file; move it away to start with no topics`);
    return parsed.topics;
  }

  save(topics: TopicInfo[]): Promise<void> {
    const text = JSON.stringify({ version: 1, topics }, null, 2);
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

function isTopicFile(value: unknown): value is { topics: TopicInfo[] } {
  const topics = (value as { topics?: unknown } | null)?.topics;
  return (
    Array.isArray(topics) &&
    topics.every(
      (topic: Partial<TopicInfo>) =>
        typeof topic?.name === 'string' && Number.isInteger(topic.partitions) && typeof topic.endOffsets === 'object' && topic.endOffsets !== null,
    )
  );
}
