/**
 * Records keyed by member ids and topic names come from clients, and `__proto__` is a legal name for
 * both. Reading and writing them as own properties keeps such a name a plain key instead of an access
 * to (or a replacement of) the object's prototype.
 */
const hasOwn = Object.prototype.hasOwnProperty;

export function getOwn<T>(record: Record<string, T>, key: string): T | undefined {
  return hasOwn.call(record, key) ? record[key] : undefined;
}

export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
