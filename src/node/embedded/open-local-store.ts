import type { Clock, PartitionStore } from '@cohort/replication';
import type { CohortConfig } from '../../config/cohort-config';

/** The embedded PartitionStore over segment files in DATA_DIR (libs/replication LocalPartitionStore). */
export async function openLocalStore(_config: CohortConfig, _clock: Clock): Promise<PartitionStore & { close(): Promise<void> }> {
  // Interim: libs/replication has not exported LocalPartitionStore yet; wired as soon as it lands.
  throw new Error('the embedded log (LocalPartitionStore) is not available in this build yet');
}
