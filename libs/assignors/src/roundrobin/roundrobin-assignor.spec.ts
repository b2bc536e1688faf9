// Port of Kafka's RoundRobinAssignorTest with Kafka's expected assignments.
import type { MemberSubscription } from '../api/partition-assignor';
import { flat, flatAll } from '@cohort/assignors/testing';
import { createRoundRobinAssignor } from './roundrobin-assignor';

const assignor = createRoundRobinAssignor();
const topic1 = 'topic1';
const topic2 = 'topic2';

function member(memberId: string, topics: string[], groupInstanceId?: string): MemberSubscription {
  return { memberId, groupInstanceId: groupInstanceId ?? null, subscription: { topics } };
}

describe('roundrobin assignor (Kafka RoundRobinAssignorTest)', () => {
  it('assigns nothing to one consumer with no topic', () => {
    const result = assignor.assign({ partitionsPerTopic: {} }, [member('consumer', [])]);
    expect(result).toEqual({ consumer: { partitions: [] } });
  });

  it('assigns nothing for a nonexistent topic', () => {
    const result = assignor.assign({ partitionsPerTopic: {} }, [member('consumer', ['topic'])]);
    expect(result).toEqual({ consumer: { partitions: [] } });
  });

  it('gives one consumer all partitions of its topic', () => {
    const result = assignor.assign({ partitionsPerTopic: { topic: 3 } }, [member('consumer', ['topic'])]);
    expect(flat(result.consumer)).toEqual(['topic-0', 'topic-1', 'topic-2']);
  });

  it('only assigns partitions from subscribed topics', () => {
    const result = assignor.assign({ partitionsPerTopic: { topic: 3, other: 3 } }, [member('consumer', ['topic'])]);
    expect(flat(result.consumer)).toEqual(['topic-0', 'topic-1', 'topic-2']);
  });

  it('gives one consumer all partitions of several topics', () => {
    const result = assignor.assign({ partitionsPerTopic: { topic1: 1, topic2: 2 } }, [
      member('consumer', [topic1, topic2]),
    ]);
    expect(flat(result.consumer)).toEqual(['topic1-0', 'topic2-0', 'topic2-1']);
  });

  it('two consumers, one topic, one partition', () => {
    const result = assignor.assign({ partitionsPerTopic: { topic: 1 } }, [
      member('consumer1', ['topic']),
      member('consumer2', ['topic']),
    ]);
    expect(flatAll(result)).toEqual({ consumer1: ['topic-0'], consumer2: [] });
  });

  it('two consumers, one topic, two partitions', () => {
    const result = assignor.assign({ partitionsPerTopic: { topic: 2 } }, [
      member('consumer1', ['topic']),
      member('consumer2', ['topic']),
    ]);
    expect(flatAll(result)).toEqual({ consumer1: ['topic-0'], consumer2: ['topic-1'] });
  });

  it('multiple consumers with mixed topics', () => {
    const result = assignor.assign({ partitionsPerTopic: { topic1: 3, topic2: 2 } }, [
      member('consumer1', [topic1]),
      member('consumer2', [topic1, topic2]),
      member('consumer3', [topic1]),
    ]);
    expect(flatAll(result)).toEqual({
      consumer1: ['topic1-0'],
      consumer2: ['topic1-1', 'topic2-0', 'topic2-1'],
      consumer3: ['topic1-2'],
    });
  });

  it('two dynamic consumers, two topics, six partitions', () => {
    const result = assignor.assign({ partitionsPerTopic: { topic1: 3, topic2: 3 } }, [
      member('consumer1', [topic1, topic2]),
      member('consumer2', [topic1, topic2]),
    ]);
    expect(flatAll(result)).toEqual({
      consumer1: ['topic1-0', 'topic1-2', 'topic2-1'],
      consumer2: ['topic1-1', 'topic2-0', 'topic2-2'],
    });
  });

  it('orders two static consumers by instance id', () => {
    const result = assignor.assign({ partitionsPerTopic: { topic1: 3, topic2: 3 } }, [
      member('consumer-b', [topic1, topic2], 'instance1'),
      member('consumer-a', [topic1, topic2], 'instance2'),
    ]);
    expect(flatAll(result)).toEqual({
      'consumer-b': ['topic1-0', 'topic1-2', 'topic2-1'],
      'consumer-a': ['topic1-1', 'topic2-0', 'topic2-2'],
    });
  });

  it('puts a static consumer before a dynamic one', () => {
    const result = assignor.assign({ partitionsPerTopic: { topic1: 3, topic2: 3 } }, [
      member('consumer-b', [topic1, topic2], 'instance1'),
      member('consumer-a', [topic1, topic2]),
    ]);
    expect(flatAll(result)).toEqual({
      'consumer-b': ['topic1-0', 'topic1-2', 'topic2-1'],
      'consumer-a': ['topic1-1', 'topic2-0', 'topic2-2'],
    });
  });

  it('keeps static members persistent when a dynamic member is replaced', () => {
    const view = { partitionsPerTopic: { topic1: 3, topic2: 3 } };
    const statics = [
      member('consumer1', [topic1, topic2], 'instance1'),
      member('consumer2', [topic1, topic2], 'instance2'),
      member('consumer3', [topic1, topic2], 'instance3'),
    ];
    const expected = {
      consumer1: ['topic1-0', 'topic2-1'],
      consumer2: ['topic1-1', 'topic2-2'],
      consumer3: ['topic1-2'],
    };
    expect(flatAll(assignor.assign(view, [...statics, member('consumer4', [topic1, topic2])]))).toEqual({
      ...expected,
      consumer4: ['topic2-0'],
    });
    expect(flatAll(assignor.assign(view, [...statics, member('consumer5', [topic1, topic2])]))).toEqual({
      ...expected,
      consumer5: ['topic2-0'],
    });
  });

  it('keeps static members persistent after their member ids change', () => {
    const view = { partitionsPerTopic: { topic1: 5, topic2: 5 } };
    const byInstance = (members: MemberSubscription[]): Record<string, string[]> => {
      const result = assignor.assign(view, members);
      return Object.fromEntries(members.map((m) => [m.groupInstanceId as string, flat(result[m.memberId])]));
    };
    const before = byInstance([
      member('consumer1', [topic1, topic2], 'instance1'),
      member('consumer2', [topic1, topic2], 'instance2'),
      member('consumer3', [topic1, topic2], 'instance3'),
    ]);
    expect(before).toEqual({
      instance1: ['topic1-0', 'topic1-3', 'topic2-1', 'topic2-4'],
      instance2: ['topic1-1', 'topic1-4', 'topic2-2'],
      instance3: ['topic1-2', 'topic2-0', 'topic2-3'],
    });
    const after = byInstance([
      member('consumer1', [topic1, topic2], 'instance1'),
      member('consumer4', [topic1, topic2], 'instance3'),
      member('consumer5', [topic1, topic2], 'instance2'),
    ]);
    expect(after).toEqual(before);
  });

  it('skips members not subscribed to a topic, as the javadoc example shows', () => {
    // RoundRobinAssignor javadoc: C0 [t0], C1 [t0, t1], C2 [t0, t1, t2]; t0 1, t1 2, t2 3 partitions.
    const result = assignor.assign({ partitionsPerTopic: { t0: 1, t1: 2, t2: 3 } }, [
      member('C0', ['t0']),
      member('C1', ['t0', 't1']),
      member('C2', ['t0', 't1', 't2']),
    ]);
    expect(flatAll(result)).toEqual({ C0: ['t0-0'], C1: ['t1-0'], C2: ['t1-1', 't2-0', 't2-1', 't2-2'] });
  });
});
