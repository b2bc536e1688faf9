import type { LogRecord } from '@cohort/replication';

/**
 * What this process wrote, by the bytes it wrote: the key and value each record was built from. The
 * live path applies every record it writes at once (`UncommittedWrites`), and parsing back the JSON it
 * had just made (an epoch record's history above all) was a large part of a member's join. What is kept
 * is what decoding the bytes gives: the values are valid by construction, and neither they nor what they
 * hold are changed once built. Bytes read from a log are other buffers, decoded as always.
 */
const DECODED = Symbol('decoded');

/** On an epoch record not encoded yet: a stand-in for its bytes, remembered as they decode. */
export const UNENCODED = Symbol('unencoded');

/**
 * A buffer this process wrote carries what it was built from in a hidden (non-enumerable) property,
 * rather than in a WeakMap keyed by the buffer: a group forming writes tens of thousands of records, and a
 * WeakMap entry per buffer cost several times the property, in the set and in the garbage collector's
 * weak-table work. Hidden, so a buffer still equals one with the same bytes.
 */
export function remember(bytes: Buffer, decoded: unknown): void {
  Object.defineProperty(bytes, DECODED, { value: decoded, writable: true, configurable: true });
}

export function remembered<T>(bytes: Buffer): T | undefined {
  return (bytes as Buffer & { [DECODED]?: T })[DECODED];
}

/** The value to replay a record with: its bytes, or for an epoch record not encoded yet what they decode to. */
export function valueToReplay(record: LogRecord): Buffer | null {
  return (record as LogRecord & { [UNENCODED]?: Buffer })[UNENCODED] ?? record.value;
}
