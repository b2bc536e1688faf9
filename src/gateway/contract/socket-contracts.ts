import type { Type } from '@nestjs/common';
import type { RequestEventName } from '@cohort/protocol';
import type { JsonSchema } from '@cohort/protocol/asyncapi';
import { SOCKET_REQUEST_DTOS } from '../dto/socket-request-dtos';
import { compileChecks } from './compiled-checks';
import { dtoSchemas } from './dto-schemas';

/** The schema name of an event's request in the AsyncAPI document (`HeartbeatRequest`). */
export const requestSchemaName = (event: RequestEventName): string => `${event}Request`;

/**
 * The JSON Schemas of every socket request and the nested shapes they use, derived from the DTOs: what
 * the AsyncAPI document publishes (libs/protocol's socket-request-schemas.ts, checked equal by a test)
 * and what the hot path compiles.
 */
export function socketRequestSchemas(): Record<string, JsonSchema> {
  const roots: Record<string, Type<unknown>> = {};
  for (const [event, dto] of Object.entries(SOCKET_REQUEST_DTOS))
    roots[requestSchemaName(event as RequestEventName)] = dto;
  return dtoSchemas(roots);
}

let checkOf: ((name: string) => (payload: unknown) => boolean) | null = null;
const accepts = new Map<Type<unknown>, (payload: unknown) => unknown>();

/**
 * The compiled check of `dto`'s event (compiled-checks.ts): the payload itself when it is a request the
 * DTO accepts unchanged, else null for the DTO's validation to decide. Compiled once per process.
 */
export function compiledAccept<T>(dto: Type<T>): (payload: unknown) => T | null {
  let accept = accepts.get(dto);
  if (accept === undefined) {
    const event = (Object.keys(SOCKET_REQUEST_DTOS) as RequestEventName[]).find((e) => SOCKET_REQUEST_DTOS[e] === dto);
    if (event === undefined) throw new Error(`${dto.name} is not the DTO of a socket request`);
    checkOf ??= compileChecks(socketRequestSchemas());
    const check = checkOf(requestSchemaName(event));
    accept = (payload) => (check(payload) ? payload : null);
    accepts.set(dto, accept);
  }
  return accept as (payload: unknown) => T | null;
}
