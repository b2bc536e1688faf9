import type { CheckpointStorage } from '../storage/checkpoint-storage.port';

/** Checkpoint name under DATA_DIR. */
export const EMBEDDED_EPOCH_CHECKPOINT = 'embedded-leader-epoch';
const FORMAT_VERSION = '0';

/**
 * The single embedded node leads every partition, and each start is a new leadership, as after a
 * Kafka election: the epoch goes up by one on every start and is durable before anything is appended
 * in it. It also never goes below an epoch already in the logs (`latestInLogs`), so a lost or stale
 * checkpoint cannot make new records look older than existing ones.
 */
export function nextEmbeddedEpoch(checkpoints: CheckpointStorage, latestInLogs: number): number {
  const previous = readEpoch(checkpoints);
  const epoch = Math.max(previous, latestInLogs) + 1;
  checkpoints.write(EMBEDDED_EPOCH_CHECKPOINT, `${FORMAT_VERSION}\n${epoch}\n`);
  return epoch;
}

function readEpoch(checkpoints: CheckpointStorage): number {
  const content = checkpoints.read(EMBEDDED_EPOCH_CHECKPOINT);
  if (content === null) return -1;
  const [version, value] = content.split('\n');
  const epoch = Number(value);
  if (version !== FORMAT_VERSION || !Number.isInteger(epoch) || epoch < 0) {
    throw new Error(
      `${EMBEDDED_EPOCH_CHECKPOINT}: unreadable checkpoint ${JSON.stringify(content)} (expected "0\\n<epoch>\\n")`,
    );
  }
  return epoch;
}
