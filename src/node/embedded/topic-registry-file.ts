import { join } from 'node:path';
import type { EncodedTimeIndexes, TopicInfo } from '@cohort/coordinator';
import { AtomicJsonFile } from '../../common/atomic-json-file';

/**
 * The embedded topic registry's durable copy: one JSON file under DATA_DIR, replaced atomically
 * (AtomicJsonFile), so a crash leaves either the old registry or the new one, never a torn file. The
 * end-offset time indexes (docs/lag.md) are kept beside the topics, as text of about 8 bytes an entry;
 * a file written before them has none (each index starts at its partition's latest report).
 */
export class TopicRegistryFile {
  private readonly file: AtomicJsonFile;

  constructor(dataDir: string) {
    this.file = new AtomicJsonFile(join(dataDir, 'topics.json'));
  }

  /** The saved topics; none on first start. A file that cannot be read stops the node rather than forget topics. */
  load(): { topics: TopicInfo[]; timeIndexes: EncodedTimeIndexes } {
    const parsed = this.file.read();
    if (parsed === undefined) return { topics: [], timeIndexes: {} };
    if (!isTopicFile(parsed))
      throw new Error(`${this.file.path} is not a topic registry file; move it away to start with no topics`);
    const timeIndexes = parsed.timeIndexes;
    return {
      topics: parsed.topics,
      timeIndexes: typeof timeIndexes === 'object' && timeIndexes !== null ? (timeIndexes as EncodedTimeIndexes) : {},
    };
  }

  save(topics: TopicInfo[], timeIndexes: EncodedTimeIndexes): Promise<void> {
    return this.file.save({ version: 1, topics, timeIndexes });
  }
}

function isTopicFile(value: unknown): value is { topics: TopicInfo[]; timeIndexes?: unknown } {
  const topics = (value as { topics?: unknown } | null)?.topics;
  return (
    Array.isArray(topics) &&
    topics.every(
      (topic: Partial<TopicInfo>) =>
        typeof topic?.name === 'string' &&
        Number.isInteger(topic.partitions) &&
        typeof topic.endOffsets === 'object' &&
        topic.endOffsets !== null,
    )
  );
}
