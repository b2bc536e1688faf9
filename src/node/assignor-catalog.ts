import type { ServerAssignorLookup } from '@cohort/coordinator';
import type { TopicPartitions } from '@cohort/protocol';

/** An assignor as `GET /v1/assignors` lists it (SPEC §4). */
export interface AssignorDescription {
  name: string;
  supportedProtocols: ('eager' | 'cooperative')[];
  builtIn: boolean;
}

/** The input of `POST /v1/assignors/:name/assign` (SPEC §4), already validated by the DTO. */
export interface AssignDryRunInput {
  partitionsPerTopic: Record<string, number>;
  members: {
    memberId: string;
    groupInstanceId?: string | null;
    topics: string[];
    ownedPartitions?: TopicPartitions[];
    generationId?: number;
    userData?: unknown;
  }[];
}

/**
 * The assignors of this node (built-ins plus ASSIGNOR_PLUGINS): what the coordinator looks up for
 * server-side assignment, plus what the REST API lists and dry-runs.
 */
export interface AssignorCatalog extends ServerAssignorLookup {
  describe(): AssignorDescription[];
  /** Throws KafkaError UNSUPPORTED_ASSIGNOR for an unknown name, INVALID_REQUEST for inconsistent input. */
  dryRun(name: string, input: AssignDryRunInput): { assignments: Record<string, TopicPartitions[]> };
}
