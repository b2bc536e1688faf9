import { KafkaError } from '@cohort/protocol';
import type { PartitionAssignor } from '../api/partition-assignor';
import { AssignorRegistry } from './assignor-registry';

const custom: PartitionAssignor = {
  name: 'custom',
  assign: (_c, members) => Object.fromEntries(members.map((m) => [m.memberId, { partitions: [] }])),
};

describe('AssignorRegistry', () => {
  it('lists the four classic built-ins with their protocols and the server assignors with the group types each serves', () => {
    expect(new AssignorRegistry().list()).toEqual([
      { name: 'range', supportedProtocols: ['eager'], builtIn: true, groupTypes: ['classic', 'consumer'] },
      { name: 'roundrobin', supportedProtocols: ['eager'], builtIn: true, groupTypes: ['classic'] },
      { name: 'sticky', supportedProtocols: ['eager'], builtIn: true, groupTypes: ['classic'] },
      {
        name: 'cooperative-sticky',
        supportedProtocols: ['cooperative', 'eager'],
        builtIn: true,
        groupTypes: ['classic'],
      },
      { name: 'uniform', supportedProtocols: [], builtIn: true, groupTypes: ['consumer'] },
    ]);
  });

  it('registers a plugin with the default protocol and refuses a clash with a built-in or another plugin', () => {
    const registry = new AssignorRegistry();
    registry.register(custom, { source: "plugin './x.js'" });
    expect(registry.list().find((row) => row.name === 'custom')).toEqual({
      name: 'custom',
      supportedProtocols: ['eager'],
      builtIn: false,
      groupTypes: ['classic', 'consumer'],
    });
    expect(() => registry.register({ ...custom, name: 'sticky' }, { source: "plugin './y.js'" })).toThrow(
      "cannot register assignor 'sticky' from plugin './y.js': the name clashes with a built-in assignor",
    );
    expect(() => registry.register(custom, { source: "plugin './z.js'" })).toThrow(
      "cannot register assignor 'custom' from plugin './z.js': the name clashes with an assignor already registered from plugin './x.js'",
    );
  });

  it('refuses malformed assignors', () => {
    const registry = new AssignorRegistry();
    expect(() => registry.register({ name: '', assign: custom.assign })).toThrow(
      'cannot register assignor: its name must be a non-empty string',
    );
    expect(() => registry.register({ name: 'x' } as PartitionAssignor)).toThrow(
      "'x' has no assign(cluster, members) function",
    );
    expect(() => registry.register({ ...custom, name: 'y', supportedProtocols: ['sideways' as 'eager'] })).toThrow(
      "'y': supportedProtocols must be an array",
    );
  });

  it('answers UNSUPPORTED_ASSIGNOR for an unknown name', () => {
    const registry = new AssignorRegistry();
    expect(registry.get('nope')).toBeUndefined();
    try {
      registry.require('nope');
      throw new Error('expected an error');
    } catch (error) {
      expect(error).toBeInstanceOf(KafkaError);
      expect((error as KafkaError).errorCode).toBe(112);
      expect((error as KafkaError).message).toBe(
        "unknown assignor 'nope'; registered: range, roundrobin, sticky, cooperative-sticky",
      );
    }
  });

  it.each(['range', 'roundrobin', 'sticky', 'cooperative-sticky'])(
    'gives an empty group an empty assignment (%s; Kafka divides by zero)',
    (name) => {
      expect(new AssignorRegistry().run(name, { partitionsPerTopic: { t: 3 } }, [])).toEqual({});
    },
  );

  it('runs a registered assignor through the safe runner', () => {
    const registry = new AssignorRegistry();
    const result = registry.run('range', { partitionsPerTopic: { t: 3 } }, [
      { memberId: 'a', subscription: { topics: ['t'] } },
      { memberId: 'b', subscription: { topics: ['t'] } },
    ]);
    expect(result).toEqual({
      a: { partitions: [{ topic: 't', partitions: [0, 1] }] },
      b: { partitions: [{ topic: 't', partitions: [2] }] },
    });
  });
});
