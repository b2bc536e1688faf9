import * as path from 'node:path';
import type { KafkaError } from '@cohort/protocol';
import { FileLog } from '../log/file/file-log';
import type { LogJournal } from '../log/file/log-journal';
import { type DamagePolicy, type LogDamage, LogDamagedError } from '../log/file/log-recovery';

export interface OpenPartitionLogsOptions {
  dataDir: string;
  numPartitions: number;
  segmentBytes: number;
  /** `<dataDir>/<topic>-<p>` is partition p's directory. */
  topic: string;
  journal: LogJournal;
  /** LOG_RECOVERY_TRUNCATE_ON_CORRUPTION: cut a damaged log even where that loses records known to be written. */
  truncateOnCorruption: boolean;
  onFault: (fault: KafkaError, cause: unknown) => void;
}

export interface OpenedPartitionLogs {
  logs: Map<number, FileLog>;
  /** Partitions not opened: recovery would have cut records known to be written. Their files are untouched. */
  damaged: Map<number, LogDamage>;
  /** Partitions cut where records known to be written were damaged, as the operator allowed. */
  cut: Set<number>;
}

/**
 * Opens every partition's log for the embedded store. Damage found on open is weighed with the journal
 * (what it holds was written too, and its replay may put back all that a cut removes): a cut that loses
 * nothing known is made as after any crash; one that would lose records known to be written is made
 * only when the operator allows it (LOG_RECOVERY_TRUNCATE_ON_CORRUPTION), else the partition is left
 * closed, its files as they are, and the others open. Any other failure rejects, every log closed.
 */
export async function openPartitionLogs(options: OpenPartitionLogsOptions): Promise<OpenedPartitionLogs> {
  const { journal } = options;
  const damaged = new Map<number, LogDamage>();
  const cut = new Set<number>();
  const policy =
    (p: number): DamagePolicy =>
    (damage) => {
      damage.to = Math.max(damage.to, journal.journaledEnd(p));
      if (damage.to <= damage.from || journal.replayReach(p, damage.from) >= damage.to) return 'truncate';
      if (!options.truncateOnCorruption) return 'refuse';
      cut.add(p);
      return 'truncate';
    };
  const opened = await Promise.allSettled(
    Array.from({ length: options.numPartitions }, (_, p) =>
      FileLog.open(path.join(options.dataDir, `${options.topic}-${p}`), {
        segmentBytes: options.segmentBytes,
        journal: { journal, journalId: p },
        onFault: options.onFault,
        onDamage: policy(p),
      }),
    ),
  );
  const logs = new Map<number, FileLog>();
  let failure: unknown;
  opened.forEach((result, p) => {
    if (result.status === 'fulfilled') logs.set(p, result.value);
    else if (result.reason instanceof LogDamagedError) damaged.set(p, result.reason.damage);
    else failure ??= result.reason;
  });
  if (failure !== undefined) {
    await Promise.all([...logs.values()].map((l) => l.abort()));
    throw failure;
  }
  return { logs, damaged, cut };
}
