import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';
import type { ShardRegistry } from '../shard/shard-registry';
import { SILENT_LOGGER } from '../ports/coordinator-metrics.port';
import { type ApiSpec, CoordinatorDispatch } from './coordinator-dispatch';

type Answer = { errorCode: number; message?: string; value?: string };

/** A row whose handler does what `behaviour` says, answered with the error code and message on failure. */
function spec(behaviour: () => string): ApiSpec<{ groupId: string }, Answer> {
  return {
    name: 'Probe',
    validate: (request) => (request.groupId.startsWith('bad') ? 'groupId must not start with bad' : null),
    groupId: (request) => request.groupId,
    emptyGroupIdAllowed: false,
    operation: { kind: 'read', run: () => ({ errorCode: 0, value: behaviour() }) },
    errorResponse: (_request, error) => ({ errorCode: error.errorCode, message: error.message }),
  };
}

/** The one way a request fails: a thrown KafkaError, mapped once to the API's error body (Kafka's handleOperationException). */
describe('CoordinatorDispatch', () => {
  let h: CoordinatorHarness;
  let dispatch: CoordinatorDispatch;
  const context = { clientId: 'c', clientHost: 'h' };
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
    const shards = (h.coordinator as unknown as { shards: ShardRegistry }).shards;
    dispatch = new CoordinatorDispatch(shards, { logger: SILENT_LOGGER });
    dispatch.started = true;
  });

  it('answers the handler when nothing fails', async () => {
    expect(
      await dispatch.run(
        spec(() => 'ok'),
        { groupId: 'g' },
        context,
      ),
    ).toEqual({ errorCode: 0, value: 'ok' });
  });

  it('answers a request that breaks a protocol rule INVALID_REQUEST with the rule, through the API error body', async () => {
    expect(
      await dispatch.run(
        spec(() => 'ok'),
        { groupId: 'bad-g' },
        context,
      ),
    ).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      message: 'groupId must not start with bad',
    });
  });

  it('answers an empty group id INVALID_GROUP_ID where the API does not accept one, and NOT_AVAILABLE before start', async () => {
    expect(
      (
        await dispatch.run(
          spec(() => 'ok'),
          { groupId: '' },
          context,
        )
      ).errorCode,
    ).toBe(ErrorCode.INVALID_GROUP_ID);
    dispatch.started = false;
    expect(
      (
        await dispatch.run(
          spec(() => 'ok'),
          { groupId: 'g' },
          context,
        )
      ).errorCode,
    ).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it("maps a KafkaError the handler throws to the API's error body", async () => {
    const answer = await dispatch.run(
      spec(() => {
        throw KafkaError.of('GROUP_ID_NOT_FOUND', 'no such group');
      }),
      { groupId: 'g' },
      context,
    );
    expect(answer).toEqual({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, message: 'no such group' });
  });

  it('answers a bug UNKNOWN_SERVER_ERROR instead of leaving the request hanging, and execute rejects with it as a KafkaError', async () => {
    const buggy = spec(() => {
      throw new TypeError('x is undefined');
    });
    expect(await dispatch.run(buggy, { groupId: 'g' }, context)).toEqual({
      errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
      message: 'internal error: x is undefined',
    });
    await expect(dispatch.execute(buggy, { groupId: 'g' }, context)).rejects.toMatchObject({
      errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
    });
  });

  it('answers NOT_COORDINATOR for a group whose partition this node does not lead', async () => {
    h.store.resign(h.partitionOf('g'));
    await h.settle();
    expect(
      (
        await dispatch.run(
          spec(() => 'ok'),
          { groupId: 'g' },
          context,
        )
      ).errorCode,
    ).toBe(ErrorCode.NOT_COORDINATOR);
  });
});
