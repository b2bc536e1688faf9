/**
 * @cohort/assignors: Kafka's four client-side partition assignors reproduced exactly, the plugin API
 * (libs/assignors/README.md), the plugin registry, a safe runner for rebalances and the REST dry run, and validation
 * helpers. Depends on @cohort/protocol alone, so plugin authors can use it by itself. This entry runs in
 * browsers too; the Node-only plugin loader is `@cohort/assignors/plugins`, the conformance check
 * `@cohort/assignors/conformance`.
 */
export * from './api/partition-assignor';
export { createRangeAssignor, RANGE_ASSIGNOR_NAME } from './range/range-assignor';
export { createRoundRobinAssignor, ROUNDROBIN_ASSIGNOR_NAME } from './roundrobin/roundrobin-assignor';
export { createStickyAssignor, STICKY_ASSIGNOR_NAME, type StickyAssignor } from './sticky/sticky-assignor';
export {
  createCooperativeStickyAssignor,
  COOPERATIVE_STICKY_ASSIGNOR_NAME,
  type CooperativeStickyAssignor,
} from './sticky/cooperative-sticky-assignor';
export type { StickyUserData, CooperativeUserData } from './sticky/member-data';
export type { RackAwareOptions } from './common/rack-awareness';
export {
  validateAssignment,
  type AssignmentValidation,
  type AssignmentValidationOptions,
} from './validation/validate-assignment';
export {
  validateAssignorInput,
  DEFAULT_INPUT_LIMITS,
  type InputLimits,
  type InputValidationOptions,
} from './validation/validate-input';
export { AssignorRegistry, builtInAssignors, type RegisterOptions } from './registry/assignor-registry';
export { assignorShapeProblem, isPartitionAssignor } from './registry/assignor-shape';
export { runAssignor, type RunAssignorOptions } from './runner/run-assignor';
export { AssignorError, type AssignorFailure } from './runner/assignor-error';
export { dryRunAssign, type DryRunMember, type DryRunRequest, type DryRunResponse } from './runner/dry-run';

import { createCooperativeStickyAssignor } from './sticky/cooperative-sticky-assignor';
import { createRangeAssignor } from './range/range-assignor';
import { createRoundRobinAssignor } from './roundrobin/roundrobin-assignor';
import { createStickyAssignor } from './sticky/sticky-assignor';

/** Shared instances for server-side use (their client-side state is never used there). */
export const rangeAssignor = createRangeAssignor();
export const roundRobinAssignor = createRoundRobinAssignor();
export const stickyAssignor = createStickyAssignor();
export const cooperativeStickyAssignor = createCooperativeStickyAssignor();

// Server assignors for consumer groups (KIP-848).
export type {
  ConsumerGroupAssignor,
  ConsumerGroupAssignment,
  ConsumerGroupTargets,
  ConsumerGroupMemberSpec,
  ConsumerGroupSpec,
  GroupType,
} from './server/consumer-group-assignor';
export { createServerRangeAssignor, SERVER_RANGE_ASSIGNOR_NAME } from './server/server-range-assignor';
export { createUniformAssignor, UNIFORM_ASSIGNOR_NAME } from './server/uniform-assignor';
export { topicIdOf, uuidToString, uuidHashCode, compareUuids, type JavaUuid } from './server/java-uuid';
export { simpleShareAssign, SIMPLE_SHARE_ASSIGNOR_NAME, type ShareGroupAssignment } from './server/share-assignor';
