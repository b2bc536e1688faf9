import Ajv, { type ValidateFunction } from 'ajv';
import { length } from 'class-validator';
import type { JsonSchema } from '@cohort/protocol/asyncapi';
import { SCHEMA_REF_PREFIX } from './dto-schemas';
import { OPAQUE_JSON_KEYWORD } from './schema-decorators';

/**
 * The hot path's check of a request, compiled by Ajv from its DTO's derived schema: it says yes only
 * where the DTO's class-validator rules say yes and the pipe would give the payload back unchanged, so
 * the request can go to the handler as it came; anything else (null) goes through the DTO's validation,
 * which decides and words the error. To that end the compiled schema is stricter than the documented one:
 * no unknown key (the pipe would strip it), plain objects only (no binary attachment), strings measured
 * as class-validator measures them, and opaque JSON only as JSON.parse builds it, a few levels deep.
 * compiled-checks.spec.ts runs both on random and hostile payloads.
 */
export function compileChecks(schemas: Record<string, JsonSchema>): (name: string) => (payload: unknown) => boolean {
  const ajv = new Ajv({ allowUnionTypes: true, allErrors: false });
  ajv.addKeyword({ keyword: 'plainObject', type: 'object', schemaType: 'boolean', errors: false, validate: isPlain });
  ajv.addKeyword({
    keyword: 'lengthAsClassValidator',
    type: 'string',
    schemaType: 'array',
    errors: false,
    validate: lengthAsClassValidator,
  });
  ajv.addKeyword({
    keyword: 'knownKeysOnly',
    type: 'object',
    schemaType: 'array',
    errors: false,
    compile: (names: readonly string[]) => (value: object) => hasOnlyKeys(value, names),
  });
  ajv.addKeyword({
    keyword: 'opaqueJson',
    schemaType: 'boolean',
    errors: false,
    validate: (_schema: boolean, value: unknown) => value !== null && isPlainJson(value, 0),
  });
  const definitions: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(schemas)) definitions[name] = strict(schema) as JsonSchema;
  const compiled = new Map<string, ValidateFunction>();
  return (name) => {
    let check = compiled.get(name);
    if (check === undefined) {
      if (!(name in definitions)) throw new Error(`no schema named ${name}`);
      check = ajv.compile({ $ref: `#/definitions/${name}`, definitions });
      compiled.set(name, check);
    }
    const validate = check;
    return (payload) => validate(payload) === true;
  };
}

/** The hot path's variant of a derived schema (see compileChecks); descriptions and marks dropped. */
function strict(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strict);
  if (value === null || typeof value !== 'object') return value;
  const schema = value as JsonSchema;
  if (OPAQUE_JSON_KEYWORD in schema) return { opaqueJson: true };
  const out: JsonSchema = {};
  for (const [key, item] of Object.entries(schema)) {
    if (key === 'description' || key.startsWith('x-') || key === 'minLength' || key === 'maxLength') continue;
    if (key === '$ref') out.$ref = (item as string).replace(SCHEMA_REF_PREFIX, '#/definitions/');
    else if (key === 'properties')
      out.properties = Object.fromEntries(Object.entries(item as JsonSchema).map(([k, v]) => [k, strict(v)]));
    else out[key] = strict(item);
  }
  if ('minLength' in schema || 'maxLength' in schema)
    out.lengthAsClassValidator = [schema.minLength ?? 0, schema.maxLength ?? Number.MAX_SAFE_INTEGER];
  if ('properties' in schema) {
    // additionalProperties: false, as a loop over the names: Ajv compares a key with each name only up
    // to 8 names and looks it up in the schema's properties past that (the ConsumerGroupHeartbeat has
    // 10), which cost a steady heartbeat more than comparing its 3 keys with the names they lead.
    out.knownKeysOnly = Object.keys(schema.properties as JsonSchema);
    out.plainObject = true;
  }
  return out;
}

/** No key but `names` (`additionalProperties: false`, as Ajv reads it: every key `for…in` gives). */
function hasOnlyKeys(value: object, names: readonly string[]): boolean {
  for (const key in value) {
    let known = false;
    for (let i = 0; i < names.length && !known; i++) known = names[i] === key;
    if (!known) return false;
  }
  return true;
}

function isPlain(_schema: boolean, value: object): boolean {
  return Object.getPrototypeOf(value) === Object.prototype;
}

/** Characters class-validator's length (validator.js isLength) does not count one per UTF-16 unit. */
// eslint-disable-next-line no-misleading-character-class
const COUNTED_APART = /[\uD800-\uDBFF\uFE0E\uFE0F]/;

/**
 * class-validator's MinLength/MaxLength, exactly: it counts a surrogate pair as one character and a
 * variation selector as none, so only a string holding either needs its count; the others are their length.
 */
function lengthAsClassValidator([min, max]: [number, number], value: string): boolean {
  const units = value.length;
  if (units <= max && units >= min && (min === 0 || !COUNTED_APART.test(value))) return true;
  return length(value, min, max);
}

/** Keys the pipe's class-transformer pass treats specially: a value holding one is left to it. */
const SPECIAL_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** JSON as JSON.parse builds it, a few levels deep, with no special key: the pipe would give it back equal. */
function isPlainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (depth > 4 || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (!isPlainJson(item, depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) {
    if (SPECIAL_KEYS.has(key) || !isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
