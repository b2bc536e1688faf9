import type { ErrorCodeValue, ErrorFields } from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { RequestContext } from '../ports/group-coordinator.api';
import { operationWriteError } from '../context/store-errors';
import { errorFields } from '../responses/error-fields';
import { type CoordinatorResult, PARKED } from '../runtime/coordinator-result';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import type { ShardEnv } from '../context/shard-env';
import type { ShardRegistry } from '../shard/shard-registry';

/**
 * How an API runs on the shard of its group (Kafka's `scheduleReadOperation` / `scheduleWriteOperation`):
 * - `read`: a function of the shard's committed state; the response leaves at once — except for state
 *   that is applied before it commits (consumer groups, `afterPendingWrites`): that response leaves once
 *   the writes before it are committed, and is the API's error if they fail, so a read never shows what
 *   a failover takes back (Kafka reads the snapshot at the last committed offset);
 * - `write`: a `CoordinatorResult` the shard runs; the response leaves once its records commit;
 * - `parked`: the response is parked on the group (JoinGroup, SyncGroup) and given through `respond`;
 *   the result only carries what the step writes.
 */
export type ShardOperation<Req, Res> =
  | {
      kind: 'read';
      run: (shard: CoordinatorShard, request: Req, context: RequestContext) => Res;
      afterPendingWrites?: boolean;
    }
  | { kind: 'write'; run: (shard: CoordinatorShard, request: Req, context: RequestContext) => CoordinatorResult<Res> }
  | {
      kind: 'parked';
      run: (
        shard: CoordinatorShard,
        request: Req,
        context: RequestContext,
        respond: (response: Res) => void,
      ) => CoordinatorResult<never> | CoordinatorResult<Res>;
    }
  /** An API over several groups or none (DescribeGroups, DeleteGroups, ListGroups): it dispatches its parts itself. */
  | { kind: 'fan-out'; run: (dispatch: CoordinatorDispatch, request: Req, context: RequestContext) => Promise<Res> };

/**
 * One row of the coordinator's API table: what a request must satisfy, which group routes it, what it
 * runs, and its API's error body for a failure of the whole request (Kafka's `getErrorResponse`).
 */
export interface ApiSpec<Req, Res> {
  /** Kafka's API name, for logs. */
  name: string;
  /** Why the request breaks a protocol rule, or null (answered INVALID_REQUEST). */
  validate: (request: Req) => string | null;
  /** The group whose shard serves the request (not asked of a fan-out). */
  groupId: (request: Req) => string;
  /** Kafka's `isValidGroupId` per API: OffsetCommit, OffsetFetch, DescribeGroups and DeleteGroups accept ''. */
  emptyGroupIdAllowed: boolean;
  operation: ShardOperation<Req, Res>;
  /** The whole request failed with `error` (invalid, not routable here, a bug): its API's answer. */
  errorResponse: (request: Req, error: KafkaError) => Res;
}

/** A KafkaError's fields in a response; an error without a message of its own gets Kafka's default one. */
export function errorFieldsOf(error: KafkaError): ErrorFields {
  return errorFields(error.errorCode, error.message === error.errorName ? undefined : error.message);
}

/**
 * The one entry to the coordinator's shards (Kafka's `GroupCoordinatorService` over its runtime): every
 * API is a row of the table (`group-apis.ts`) run here, and there is one way for a request to fail —
 * a thrown `KafkaError`, from validation, routing or the handler — mapped to the API's error body once,
 * by `run` (Kafka's `handleOperationException`). Anything else thrown is a bug: logged, and answered
 * UNKNOWN_SERVER_ERROR rather than leaving the request hanging.
 */
export class CoordinatorDispatch {
  /** False until `GroupCoordinator.start` (and after `close`): every request is COORDINATOR_NOT_AVAILABLE. */
  started = false;

  constructor(
    readonly shards: ShardRegistry,
    private readonly env: Pick<ShardEnv, 'logger'>,
  ) {}

  /** Runs `spec` and answers every failure with its error body: what the protocol methods return. */
  run<Req, Res>(spec: ApiSpec<Req, Res>, request: Req, context: RequestContext): Promise<Res> {
    // One promise per request: the failure is answered where it is known, not through a second promise.
    return new Promise<Res>((resolve) =>
      this.start(spec, request, context, resolve, (error) =>
        resolve(spec.errorResponse(request, this.asKafkaError(spec, error))),
      ),
    );
  }

  /** Runs `spec`; a failure rejects with a KafkaError (what the operator views let through to REST). */
  execute<Req, Res>(spec: ApiSpec<Req, Res>, request: Req, context: RequestContext): Promise<Res> {
    return new Promise<Res>((resolve, reject) => this.start(spec, request, context, resolve, reject));
  }

  /** Runs `spec`, giving its response to `resolve` and any failure, as a KafkaError, to `reject`. */
  private start<Req, Res>(
    spec: ApiSpec<Req, Res>,
    request: Req,
    context: RequestContext,
    resolve: (response: Res) => void,
    reject: (error: unknown) => void,
  ): void {
    try {
      const invalid = spec.validate(request);
      if (invalid !== null) throw KafkaError.of('INVALID_REQUEST', invalid);
      const { operation } = spec;
      if (operation.kind === 'fan-out') {
        operation.run(this, request, context).then(resolve, reject);
        return;
      }
      const shard = this.shardFor(spec.groupId(request), spec.emptyGroupIdAllowed);
      switch (operation.kind) {
        case 'read': {
          const response = operation.run(shard, request, context);
          if (!operation.afterPendingWrites) {
            resolve(response);
            return;
          }
          shard
            .run<Res>({
              records: [],
              response,
              awaitsPendingWrites: true,
              onFailure: (outcome) =>
                spec.errorResponse(
                  request,
                  new KafkaError(operationWriteError(outcome.storeError) as ErrorCodeValue, outcome.message),
                ),
            })
            .then((answer) => resolve(answer as Res), reject);
          return;
        }
        case 'write':
          // The handler runs as one synchronous step; the shard's runtime appends its records with the
          // open batch and the reply leaves once they commit.
          shard.run(operation.run(shard, request, context)).then((response) => resolve(response as Res), reject);
          return;
        case 'parked': {
          // A parked reply is given through `resolve`; a result that carries its own response (a classic
          // member's request to a consumer group) gives it once its records are committed.
          const result = operation.run(shard, request, context, resolve);
          if (result === PARKED) {
            // Nothing written or answered here (an acquire answered at once, a queued ConsumerGroupHeartbeat):
            // only what it armed is run, and nobody waits on a promise that gives nothing.
            if (!shard.effects.isEmpty) void shard.run(result);
            return;
          }
          void shard.run(result).then((response) => {
            if (response !== undefined) resolve(response as Res);
          });
          return;
        }
      }
    } catch (error) {
      reject(this.asKafkaError(spec, error));
    }
  }

  /** Kafka's `validateGroupStatus`: a group id, the coordinator started, and the shard that serves it loaded here. */
  shardFor(groupId: string, emptyGroupIdAllowed = true): CoordinatorShard {
    if (typeof groupId !== 'string' || (groupId === '' && !emptyGroupIdAllowed))
      throw KafkaError.of('INVALID_GROUP_ID', 'groupId must be a non-empty string');
    this.requireStarted();
    const routed = this.shards.route(groupId);
    if ('error' in routed) throw new KafkaError(routed.error as ErrorCodeValue, routed.message);
    return routed.shard;
  }

  requireStarted(): void {
    if (!this.started) throw KafkaError.of('COORDINATOR_NOT_AVAILABLE', 'the coordinator is not started');
  }

  private asKafkaError(spec: { name: string }, error: unknown): KafkaError {
    if (error instanceof KafkaError) return error;
    this.env.logger.error(
      `coordinator handler of ${spec.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return new KafkaError(
      ErrorCode.UNKNOWN_SERVER_ERROR,
      `internal error: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * A describe over several groups (DescribeGroups, ConsumerGroupDescribe, ShareGroupDescribe): each id
 * `idsOf` the request names goes to its own shard through `one`, whose failure is that group's entry,
 * never the whole answer's.
 */
export function describeEachGroup<R, G>(
  name: string,
  one: ApiSpec<string, G>,
  idsOf: (request: R) => string[],
): ApiSpec<R, { errorCode: number; groups: G[] }> {
  return {
    name,
    validate: () => null,
    groupId: () => '',
    emptyGroupIdAllowed: true,
    operation: {
      kind: 'fan-out',
      run: async (dispatch, request, context) => {
        // An id named twice is described once (its entry repeats in the answer, as Kafka lists it): a
        // request naming one large group a thousand times cannot make the node build it a thousand times.
        const ids = idsOf(request);
        const described = new Map<string, Promise<G>>();
        for (const groupId of ids)
          if (!described.has(groupId)) described.set(groupId, dispatch.run(one, groupId, context));
        return { errorCode: 0, groups: await Promise.all(ids.map((groupId) => described.get(groupId)!)) };
      },
    },
    errorResponse: (_request, error) => ({ ...errorFieldsOf(error), groups: [] }),
  };
}
