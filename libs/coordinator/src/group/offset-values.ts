/** What a committed offset holds (Kafka's OffsetAndMetadata). */
export interface OffsetAndMetadata {
  offset: number;
  /** -1 when the committer did not know the leader epoch. */
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
  /** Legacy per-commit expiry (OffsetCommitValue v1); null under KIP-211 rules. */
  expireTimestamp: number | null;
}

/** A committed offset with the log position of its record: a later record always wins. */
export interface CommittedOffset extends OffsetAndMetadata {
  logOffset: number;
}
