import { CohortError } from './cohort-error';

describe('CohortError', () => {
  it('is built from a failed socket.io response, keeping the Kafka name and the extra fields', () => {
    const error = CohortError.fromResponse({
      errorCode: 79,
      errorName: 'MEMBER_ID_REQUIRED',
      errorMessage: 'join again',
      memberId: 'm-1',
    });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: 79,
      name: 'MEMBER_ID_REQUIRED',
      message: 'join again',
      retriable: false,
      details: { memberId: 'm-1' },
    });
  });

  it.each([
    [7, 'REQUEST_TIMED_OUT'],
    [14, 'COORDINATOR_LOAD_IN_PROGRESS'],
    [15, 'COORDINATOR_NOT_AVAILABLE'],
    [16, 'NOT_COORDINATOR'],
    [27, 'REBALANCE_IN_PROGRESS'],
    [89, 'THROTTLING_QUOTA_EXCEEDED'],
    [3, 'UNKNOWN_TOPIC_OR_PARTITION'],
  ])('classifies %i %s as retriable, as Kafka does', (code, name) => {
    expect(CohortError.fromResponse({ errorCode: code })).toMatchObject({ code, name, retriable: true });
  });

  it.each([
    [25, 'UNKNOWN_MEMBER_ID'],
    [22, 'ILLEGAL_GENERATION'],
    [82, 'FENCED_INSTANCE_ID'],
    [30, 'GROUP_AUTHORIZATION_FAILED'],
    [42, 'INVALID_REQUEST'],
  ])('classifies %i %s as not retriable', (code, name) => {
    expect(CohortError.fromResponse({ errorCode: code })).toMatchObject({ code, name, retriable: false });
  });

  it('is built from a REST error body with its HTTP status; 5xx and 429 are worth a retry', () => {
    expect(
      CohortError.fromRest({ statusCode: 409, errorCode: 68, error: 'NON_EMPTY_GROUP', message: 'not empty' }, 409),
    ).toMatchObject({
      code: 68,
      name: 'NON_EMPTY_GROUP',
      status: 409,
      message: 'not empty',
      retriable: false,
    });
    expect(CohortError.fromRest(undefined, 503)).toMatchObject({ code: 15, status: 503, retriable: true });
    expect(CohortError.fromRest({ message: ['a is bad', 'b is bad'] }, 400)).toMatchObject({
      code: 42,
      message: 'a is bad; b is bad',
      retriable: false,
    });
  });

  it('names errors the SDK raises itself and matches them by name', () => {
    const error = CohortError.of('REQUEST_TIMED_OUT', 'no answer to Heartbeat within 10000 ms');
    expect(CohortError.is(error, 'REQUEST_TIMED_OUT')).toBe(true);
    expect(CohortError.is(error, 'NOT_COORDINATOR')).toBe(false);
    expect(CohortError.is(new Error('x'))).toBe(false);
  });
});
