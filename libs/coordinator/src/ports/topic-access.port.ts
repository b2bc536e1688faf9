/**
 * Whether a principal may DESCRIBE a topic (the app's ACLs), so the topics a member's
 * `subscribedTopicRegex` matches are only those its principal may describe (Kafka's KAFKA-18813).
 * Absent when ACLs are off: patterns are then not filtered.
 */
export interface TopicAccessPort {
  canDescribeTopic(principal: string, host: string, topic: string): boolean;
  /** Changes whenever the ACL bindings change, so cached answers are dropped. */
  version(): number;
  /**
   * Calls `listener` after each change of the bindings (here or on another node), so groups whose regex
   * members may now be given other topics move at once; returns what unsubscribes it.
   */
  onChanged?(listener: () => void): () => void;
}
