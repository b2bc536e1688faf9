import { randomBytes } from 'node:crypto';
import type { PeerAuthentication } from '@cohort/replication';
import type { CohortConfig } from '../../config/cohort-config';
import { loadClusterSecret } from './cluster-secret';

/** The replication transport's handshake settings from CLUSTER_SECRET_FILE (none without it). */
export function peerAuthenticationOf(config: CohortConfig): PeerAuthentication | undefined {
  const file = config.security.clusterSecretFile;
  return file ? { secret: loadClusterSecret(file), randomBytes } : undefined;
}
