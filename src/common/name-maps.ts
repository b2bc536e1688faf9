const NAME_MAPS = Symbol('cohort:name-maps');
/** Keys that reach an object's prototype when a map is read or written as `map[key]`. */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

/**
 * Marks a DTO property as a map from names (topic → count). Nest's ValidationPipe deletes the keys
 * `__proto__`, `constructor` and `prototype` from every payload before validation, so such a key in a
 * map would silently be taken as absent (a dry run with `{"__proto__": {"t": 3}}` answered 200);
 * KafkaValidationPipe refuses it instead, as it refuses any other name that is not valid there.
 */
export function NameMap(): PropertyDecorator {
  return (target, property) => {
    const owner = target.constructor;
    const names = (Reflect.getOwnMetadata(NAME_MAPS, owner) as string[] | undefined) ?? [];
    Reflect.defineMetadata(NAME_MAPS, [...names, String(property)], owner);
  };
}

/** The `field: key` pairs of a raw payload whose name maps hold a prototype key, for an INVALID_REQUEST message. */
export function prototypeKeysInNameMaps(value: unknown, metatype: unknown): string[] {
  if (typeof metatype !== 'function' || typeof value !== 'object' || value === null) return [];
  const fields = (Reflect.getMetadata(NAME_MAPS, metatype) as string[] | undefined) ?? [];
  const problems: string[] = [];
  for (const field of fields) {
    const map: unknown = (value as Record<string, unknown>)[field];
    if (typeof map !== 'object' || map === null) continue;
    for (const key of PROTOTYPE_KEYS)
      if (Object.prototype.hasOwnProperty.call(map, key)) problems.push(`${field}: "${key}" is not accepted as a name`);
  }
  return problems;
}
