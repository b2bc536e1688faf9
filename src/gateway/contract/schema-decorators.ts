import { applyDecorators } from '@nestjs/common';
import { IsDefined, ValidateIf } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/**
 * The few decorators a socket DTO needs beyond class-validator's so that its JSON Schema (dto-schemas.ts)
 * says exactly what its validation does: class-validator's conditions are functions, which no schema
 * can read, so the two conditions the DTOs use are named here and recognised by identity.
 */

/** ValidateIf's condition for a field that must be present but may be null (Kafka's nullable arrays). */
export function unlessNull(_object: object, value: unknown): boolean {
  return value !== null;
}

/** Present, and null or valid by the field's other rules (`topics: null` asks for every topic). */
export const IsNullable = (): PropertyDecorator => ValidateIf(unlessNull);

/**
 * The schema keyword that marks an opaque JSON field (a protocol's metadata, an assignment): the
 * AsyncAPI document shows the named shape (what the coordinator parses for protocolType `consumer`),
 * the hot path's compiled check accepts any plain JSON there.
 */
export const OPAQUE_JSON_KEYWORD = 'x-opaque-json';

/** Any JSON value but null, documented as the shared schema `documentedAs` (Subscription, MemberAssignment). */
export function IsOpaqueJson(documentedAs: string, description?: string): PropertyDecorator {
  return applyDecorators(
    IsDefined(),
    JSONSchema({ [OPAQUE_JSON_KEYWORD]: documentedAs, ...(description ? { description } : {}) }),
  );
}

/** The field's prose in the AsyncAPI document (the rules stay the validation decorators'). */
export const Describe = (description: string): PropertyDecorator => applyDecorators(JSONSchema({ description }));
