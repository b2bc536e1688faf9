import type { JsonSchema } from '@cohort/protocol/asyncapi';
import { SCHEMA_REF_PREFIX } from './dto-schemas';
import { OPAQUE_JSON_KEYWORD } from './schema-decorators';
import { socketRequestSchemas } from './socket-contracts';

/**
 * The socket requests' schemas as the AsyncAPI document publishes them (libs/protocol's
 * socket-request-schemas.ts, written by `npm run contract:generate`): the DTOs' derived schemas, with an
 * opaque JSON field shown as the shape the coordinator reads there for protocolType `consumer`.
 */
export function documentedRequestSchemas(): Record<string, JsonSchema> {
  return documented(socketRequestSchemas()) as Record<string, JsonSchema>;
}

function documented(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(documented);
  if (value === null || typeof value !== 'object') return value;
  const schema = value as JsonSchema;
  if (OPAQUE_JSON_KEYWORD in schema) {
    const description = schema.description;
    return {
      $ref: `${SCHEMA_REF_PREFIX}${String(schema[OPAQUE_JSON_KEYWORD])}`,
      ...(description !== undefined ? { description } : {}),
    };
  }
  return Object.fromEntries(Object.entries(schema).map(([key, item]) => [key, documented(item)]));
}
