/**
 * Upper bound on a topic's partition count over REST: assignors allocate per partition, so an
 * absurd count would be a denial of service rather than a configuration.
 */
export const MAX_TOPIC_PARTITIONS = 100_000;
