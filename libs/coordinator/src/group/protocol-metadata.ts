import type { Subscription } from '@cohort/protocol';

/**
 * Protocol metadata and assignments are opaque JSON to the coordinator (docs/protocol.md). Two metadata values
 * are "the same" (Kafka's byte-equality in `MemberMetadata.matches`) when their canonical JSON is equal:
 * object keys sorted, so a client that rebuilds the same object in another key order is not seen as changed.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties, so a hostile "__proto__" key is compared like any other key.
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * Reads a `consumer` subscription, keeping only what the coordinator relies on. Returns undefined when
 * the metadata does not have the shape (Kafka then treats the subscribed topics as unknown).
 */
export function parseSubscription(metadata: unknown): Subscription | undefined {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return undefined;
  const topics = (metadata as { topics?: unknown }).topics;
  if (!Array.isArray(topics) || !topics.every((t) => typeof t === 'string')) return undefined;
  return metadata as Subscription;
}
