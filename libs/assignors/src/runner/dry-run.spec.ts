import { thrown } from '@cohort/assignors/testing';
import { KafkaError } from '@cohort/protocol';
import type { PartitionAssignor } from '../api/partition-assignor';
import { AssignorRegistry } from '../registry/assignor-registry';
import { AssignorError } from './assignor-error';
import { dryRunAssign } from './dry-run';

const kafkaError = (run: () => unknown): KafkaError => thrown(KafkaError, run);

describe('dryRunAssign (POST /v1/assignors/:name/assign)', () => {
  const registry = new AssignorRegistry();

  it('answers the documented REST shape', () => {
    const response = dryRunAssign(registry, 'roundrobin', {
      partitionsPerTopic: { orders: 3 },
      members: [
        { memberId: 'a', topics: ['orders'] },
        { memberId: 'b', topics: ['orders'] },
      ],
    });
    expect(response).toEqual({
      assignments: { a: [{ topic: 'orders', partitions: [0, 2] }], b: [{ topic: 'orders', partitions: [1] }] },
      unknownTopics: [],
    });
  });

  it.each(['range', 'roundrobin', 'sticky', 'cooperative-sticky'])(
    'gives nothing of a subscribed topic missing from partitionsPerTopic and names it in unknownTopics (%s)',
    (name) => {
      const response = dryRunAssign(registry, name, {
        partitionsPerTopic: { orders: 2 },
        members: [
          { memberId: 'a', topics: ['orders', 'deleted'] },
          { memberId: 'b', topics: ['deleted', 'orders', 'not-yet'] },
        ],
      });
      expect(response.unknownTopics).toEqual(['deleted', 'not-yet']);
      const assigned = Object.values(response.assignments).flat();
      expect(assigned.every((entry) => entry.topic === 'orders')).toBe(true);
      expect(assigned.flatMap((entry) => entry.partitions).sort()).toEqual([0, 1]);
    },
  );

  it('uses owned partitions and generations for the sticky assignors', () => {
    const body = {
      partitionsPerTopic: { t: 4 },
      members: [
        { memberId: 'a', topics: ['t'], ownedPartitions: [{ topic: 't', partitions: [2, 3] }], generationId: 5 },
        { memberId: 'b', topics: ['t'], ownedPartitions: [{ topic: 't', partitions: [0, 1] }], generationId: 5 },
      ],
    };
    const expected = {
      assignments: { a: [{ topic: 't', partitions: [2, 3] }], b: [{ topic: 't', partitions: [0, 1] }] },
    };
    expect(dryRunAssign(registry, 'sticky', body)).toEqual({ ...expected, unknownTopics: [] });
    expect(dryRunAssign(registry, 'cooperative-sticky', body)).toEqual({ ...expected, unknownTopics: [] });
  });

  it.each(['range', 'roundrobin', 'sticky', 'cooperative-sticky'])(
    'treats __proto__ as an ordinary member id and topic name (%s)',
    (name) => {
      const body = JSON.parse(
        '{"partitionsPerTopic":{"__proto__":2,"t":1},"members":[{"memberId":"__proto__","topics":["__proto__","t"]}]}',
      ) as unknown;
      const response = dryRunAssign(registry, name, body);
      expect(Object.keys(response.assignments)).toEqual(['__proto__']);
      expect(Object.getPrototypeOf(response.assignments)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(response.assignments, '__proto__')?.value).toEqual([
        { topic: '__proto__', partitions: [0, 1] },
        { topic: 't', partitions: [0] },
      ]);
    },
  );

  it('answers UNSUPPORTED_ASSIGNOR (404) for an unknown assignor', () => {
    expect(kafkaError(() => dryRunAssign(registry, 'nope', { partitionsPerTopic: {}, members: [] })).errorCode).toBe(
      112,
    );
  });

  it('answers a consumer group assignor asked as a classic one UNSUPPORTED_ASSIGNOR, saying to send groupType consumer', () => {
    const body = { partitionsPerTopic: { orders: 2 }, members: [{ memberId: 'a', topics: ['orders'] }] };
    const refused = kafkaError(() => dryRunAssign(registry, 'uniform', body));
    expect(refused.errorCode).toBe(112);
    expect(refused.message).toBe(
      `'uniform' is a consumer group (server) assignor: send "groupType": "consumer" to run it; the classic assignors are range, roundrobin, sticky, cooperative-sticky`,
    );
    expect(dryRunAssign(registry, 'uniform', { ...body, groupType: 'consumer' }).assignments).toEqual({
      a: [{ topic: 'orders', partitions: [0, 1] }],
    });
  });

  it.each([
    ['a body that is not an object', 'x', 'body: must be { partitionsPerTopic, members }'],
    ['members that are not an array', { partitionsPerTopic: {}, members: {} }, 'members: must be an array'],
    [
      'a member that is not an object',
      { partitionsPerTopic: {}, members: [3] },
      'members[0]: must be { memberId, topics, ... }',
    ],
    [
      'a missing topics list',
      { partitionsPerTopic: { t: 1 }, members: [{ memberId: 'a' }] },
      'members[0].topics: must be an array of topic names, got undefined',
    ],
    [
      'a negative count',
      { partitionsPerTopic: { t: -3 }, members: [] },
      'partitionsPerTopic.t: partition count must be a non-negative integer, got -3',
    ],
    [
      'duplicate member ids',
      {
        partitionsPerTopic: { t: 1 },
        members: [
          { memberId: 'a', topics: ['t'] },
          { memberId: 'a', topics: ['t'] },
        ],
      },
      "members[1].memberId: duplicate member id 'a' (also members[0])",
    ],
  ])('answers INVALID_REQUEST (400) for %s', (_label, body, message) => {
    const error = kafkaError(() => dryRunAssign(registry, 'range', body));
    expect(error.errorName).toBe('INVALID_REQUEST');
    expect(error.message).toBe(message);
  });

  it('reports a failing plugin as an assignor error, not a bad request', () => {
    const withPlugin = new AssignorRegistry();
    const broken: PartitionAssignor = { name: 'broken', assign: () => ({}) };
    withPlugin.register(broken);
    expect(() =>
      dryRunAssign(withPlugin, 'broken', { partitionsPerTopic: { t: 1 }, members: [{ memberId: 'a', topics: ['t'] }] }),
    ).toThrow(AssignorError);
  });
});
