import type { AssignorDescription, ConsumerGroupAssignor, DryRunRequest, DryRunResponse } from '@cohort/assignors';
import type { ServerAssignorLookup } from '@cohort/coordinator';

/**
 * The assignors of this node (built-ins plus ASSIGNOR_PLUGINS): what the coordinator looks up for
 * server-side assignment, plus what the REST API lists (`GET /v1/assignors`) and dry-runs.
 */
export interface AssignorCatalog extends ServerAssignorLookup {
  describe(): AssignorDescription[];
  /** The consumer group (server) assignor of that name: uniform, range or a plugin's (GROUP_CONSUMER_ASSIGNORS). */
  consumerGroupAssignor(name: string): ConsumerGroupAssignor | undefined;
  /** Throws KafkaError UNSUPPORTED_ASSIGNOR for an unknown name, INVALID_REQUEST for inconsistent input. */
  dryRun(name: string, request: DryRunRequest): DryRunResponse;
}
