import { INT32_MIN } from './limits';

/**
 * Coordinator placement (docs/protocol.md): Java's `String.hashCode` over UTF-16 code units with int32
 * wrap-around, then Kafka's `Utils.abs` (which maps -2^31 to 0, where Math.abs would stay negative in int32).
 */
export function javaStringHashCode(value: string): number {
  let hash = 0;
  for (let i = 0; i < value.length; i++) {
    hash = (Math.imul(31, hash) + value.charCodeAt(i)) | 0;
  }
  return hash;
}

/** Kafka's `Utils.abs`: `n == Integer.MIN_VALUE ? 0 : Math.abs(n)`. */
export function kafkaAbs(n: number): number {
  return n === INT32_MIN ? 0 : Math.abs(n);
}

export function partitionFor(groupId: string, numPartitions: number): number {
  return kafkaAbs(javaStringHashCode(groupId)) % numPartitions;
}
