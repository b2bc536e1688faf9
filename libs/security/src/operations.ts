import type { AclOperation, AclResourceType } from '@cohort/protocol';

/**
 * Kafka's `AclOperation` rules (clients/.../common/acl/AclOperation.java and
 * StandardAuthorizerData.IMPLIES_DESCRIBE): an ALLOW of READ, WRITE, DELETE or ALTER also allows
 * DESCRIBE. Implication is for ALLOW only: a DENY of READ does not deny DESCRIBE.
 */
export const IMPLIES_DESCRIBE: ReadonlySet<AclOperation> = new Set<AclOperation>(['READ', 'WRITE', 'DELETE', 'ALTER']);

/**
 * The operations that mean something on each resource type (Kafka's AclEntry.supportedOperations,
 * limited to what Cohort checks). `ALL` is valid on every type.
 */
export const SUPPORTED_OPERATIONS: Readonly<Record<AclResourceType, readonly AclOperation[]>> = {
  GROUP: ['ALL', 'READ', 'DESCRIBE', 'DELETE'],
  TOPIC: ['ALL', 'READ', 'WRITE', 'CREATE', 'DESCRIBE', 'DELETE', 'ALTER'],
  CLUSTER: ['ALL', 'CREATE', 'CLUSTER_ACTION', 'ALTER', 'DESCRIBE'],
};
