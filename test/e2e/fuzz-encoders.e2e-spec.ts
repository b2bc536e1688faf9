import { createRequire } from 'node:module';
import { jsonText } from '../fuzz/json-text';
import { SeededRandom } from '../fuzz/seeded-random';
import { iterativeParser } from '../fuzz/socket-encoder';
import { mutate, nested, randomValue } from '../fuzz/value-generators';

// Some generated values are large (arrays of 20,000 numbers, strings of 100,000 characters).
jest.setTimeout(60_000);

const stockParser = createRequire(require.resolve('socket.io-client'))(
  'socket.io-parser',
) as typeof import('socket.io-parser');

/** A value nested `depth` levels, built without recursion. */
function deep(depth: number, asObject: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value];
  return value;
}

/**
 * The fuzzer's own encoders (test/fuzz/README.md): the same text as JSON.stringify and socket.io's
 * encoder, but at any depth, so that no generated case is left unsent because the fuzzer overflowed.
 */
describe('the fuzzer encoders', () => {
  it('write the same JSON as JSON.stringify for the values the fuzzer generates and for the corner cases of JSON', () => {
    const values: unknown[] = [
      undefined,
      null,
      -0,
      NaN,
      Infinity,
      1e300,
      5e-324,
      '\ud800',
      '"\\\n',
      [undefined, () => 1, Symbol('s')],
      { a: undefined, b: 1, c: undefined },
      { a: undefined },
    ];
    values.push(
      new Date(0),
      Buffer.from('ab'),
      { toJSON: (key: string) => `key:${key}` },
      [{ toJSON: (key: string) => key }],
      new Number(3),
      new String('s'),
      new Boolean(false),
    );
    values.push(
      Object.defineProperty({}, '__proto__', { value: [1], enumerable: true }),
      Object.defineProperty({ x: 1 }, 'hidden', { value: 2, enumerable: false }),
    );
    for (let i = 0; i < 100; i++) {
      const random = new SeededRandom(42, i);
      values.push(
        randomValue(random),
        mutate(random, {
          groupId: 'g',
          topics: [{ name: 't', partitions: [0, 1] }],
          members: [{ memberId: '', reason: null }],
        }),
        nested(random, 50),
      );
    }
    for (const value of values) expect(jsonText(value)).toBe(JSON.stringify(value));
  });

  it('refuses what JSON.stringify refuses: a cycle and a BigInt', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = { again: cycle };
    expect(() => jsonText(cycle)).toThrow(TypeError);
    expect(() => jsonText({ n: 1n })).toThrow(TypeError);
  });

  it.each([true, false])(
    'write a value nested 200,000 levels that JSON.stringify overflows on (objects: %s)',
    (asObject) => {
      const value = deep(200_000, asObject);
      expect(() => JSON.stringify(value)).toThrow(RangeError);
      const text = jsonText(value)!;
      expect(text).toBe(
        asObject
          ? `${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`
          : `${'['.repeat(200_000)}1${']'.repeat(200_000)}`,
      );
    },
  );

  it('encode socket.io packets as socket.io-parser does, and also when they are too deep for it', () => {
    const stock = new stockParser.Encoder();
    const ours = new iterativeParser.Encoder();
    const packets = [
      { type: stockParser.PacketType.CONNECT, nsp: '/', data: { clientId: 'fuzzer' } },
      {
        type: stockParser.PacketType.EVENT,
        nsp: '/',
        data: ['JoinGroup', { groupId: 'g', metadata: { topics: ['t'] } }],
        id: 7,
      },
      { type: stockParser.PacketType.EVENT, nsp: '/admin', data: ['Foo'] },
      { type: stockParser.PacketType.EVENT, nsp: '/', data: ['Foo', undefined, null], id: 0 },
      { type: stockParser.PacketType.EVENT, nsp: '/', data: ['Bin', { b: Buffer.from([1, 2]) }], id: 3 },
    ];
    for (const packet of packets) expect(ours.encode(packet)).toEqual(stock.encode(packet));

    const tooDeep = { type: stockParser.PacketType.EVENT, nsp: '/', data: ['Heartbeat', deep(100_000, false)], id: 9 };
    expect(() => stock.encode(tooDeep)).toThrow(RangeError);
    expect(ours.encode(tooDeep)).toEqual([`29["Heartbeat",${'['.repeat(100_000)}1${']'.repeat(100_000)}]`]);
  });
});
