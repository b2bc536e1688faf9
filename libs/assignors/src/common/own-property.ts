/**
 * Records keyed by member ids and topic names come from clients, and `__proto__` is a legal name for
 * both. Reading and writing them as own properties keeps such a name a plain key instead of an access
 * to (or a replacement of) the object's prototype.
 */
const hasOwn = Object.prototype.hasOwnProperty;
const objectPrototype: object = Object.prototype;

export function getOwn<T>(record: Record<string, T>, key: string): T | undefined {
  return hasOwn.call(record, key) ? record[key] : undefined;
}

/**
 * A result is written once per member, thousands of times per rebalance, and defineProperty costs
 * several times a plain store. A plain store on an object made by `{}` creates an own property unless
 * the prototype has something by that name (`__proto__`'s setter, or a name made read-only by a
 * frozen prototype), so only those names take the slow path.
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (Object.getPrototypeOf(record) === objectPrototype && !(key in objectPrototype) && !hasOwn.call(record, key))
    record[key] = value;
  else Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The keys for which a plain store on an object made by `{}` does not create an own property: the
 * prototype's own names, read at the call since a prototype can change at run time. A record
 * written with thousands of keys (a result, one key per member) checks each against this set and
 * stores the rest plainly: setOwn's three checks per key cost more than the store itself on a
 * process's first call.
 */
export function prototypeKeys(): ReadonlySet<string> {
  return new Set(Object.getOwnPropertyNames(objectPrototype));
}
