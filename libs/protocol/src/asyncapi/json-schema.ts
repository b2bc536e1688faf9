/** A few builders for the JSON Schemas of the AsyncAPI document, so each message reads as its fields. */
export type JsonSchema = Record<string, unknown>;

export const str = (description?: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'string',
  ...(description ? { description } : {}),
  ...extra,
});
export const int = (description?: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'integer',
  ...(description ? { description } : {}),
  ...extra,
});
export const bool = (description?: string): JsonSchema => ({
  type: 'boolean',
  ...(description ? { description } : {}),
});
export const arr = (items: JsonSchema, description?: string): JsonSchema => ({
  type: 'array',
  items,
  ...(description ? { description } : {}),
});
export const ref = (schema: string): JsonSchema => ({ $ref: `#/components/schemas/${schema}` });
/** Any JSON value (opaque metadata of non-`consumer` protocol types). */
export const anyJson = (description: string): JsonSchema => ({ description });

/** `schema` or null. */
export function nullable(schema: JsonSchema): JsonSchema {
  const { description, ...rest } = schema;
  return { oneOf: [rest, { type: 'null' }], ...(description ? { description } : {}) };
}

/** An object with these required and optional properties; unknown properties are ignored by the node. */
export function obj(
  required: Record<string, JsonSchema>,
  optional: Record<string, JsonSchema> = {},
  description?: string,
): JsonSchema {
  const names = Object.keys(required);
  return {
    type: 'object',
    ...(description ? { description } : {}),
    ...(names.length > 0 ? { required: names } : {}),
    properties: { ...required, ...optional },
  };
}

/**
 * A response: the error fields every ack carries, plus its own. Its own fields are all there when
 * `errorCode` is 0; a failed response may leave them out (except where the event says otherwise).
 */
export function response(fields: Record<string, JsonSchema>, description?: string): JsonSchema {
  return { allOf: [ref('ErrorFields'), obj({}, fields)], ...(description ? { description } : {}) };
}
