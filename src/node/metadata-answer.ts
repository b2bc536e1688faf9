import { ErrorCode, type MetadataNode, type MetadataResponse } from '@cohort/protocol';
import type { CohortNode } from './cohort-node';

/**
 * The Metadata answer (docs/protocol.md): partition counts of the topics the caller may see, and every
 * live node with its advertised URL, as Kafka's MetadataResponse lists its brokers, so that a client
 * given one URL learns the whole cluster from the first node it reaches. The node list needs no ACL,
 * as in Kafka: a client must be able to find the cluster before anything else.
 */
export function metadataAnswer(node: CohortNode, names: string[], refused: ReadonlySet<string>): MetadataResponse {
  return {
    errorCode: ErrorCode.NONE,
    topics: names.map((name) => {
      // Refused before existence is looked at, so a caller cannot probe which topics exist.
      if (refused.has(name)) return { name, partitions: 0, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
      const partitions = node.topics.partitionCount(name);
      return {
        name,
        partitions: partitions ?? 0,
        errorCode: partitions === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.NONE,
      };
    }),
    nodes: liveNodes(node),
  };
}

/** Nodes registered now (a node whose registration expired is fenced, and left out), by id. */
function liveNodes(node: CohortNode): MetadataNode[] {
  return node.cluster
    .nodes()
    .filter((n) => n.alive && n.url !== '')
    .map((n) => ({ nodeId: n.nodeId, url: n.url }))
    .sort((a, b) => a.nodeId - b.nodeId);
}
