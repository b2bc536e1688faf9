import { jsonText } from './json-text';
import type { SeededRandom } from './seeded-random';

/** Strings a validator, a log line or a map key could trip on. */
const NASTY_STRINGS = [
  '',
  ' ',
  'x',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '..',
  '.',
  '\u0000',
  '\ud800',
  '💥',
  '%s%n',
  '${x}',
  'a'.repeat(250),
  '-1',
  'null',
  'NaN',
  '[object Object]',
];
const NASTY_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  -2_147_483_648,
  2_147_483_647,
  2_147_483_648,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  1e300,
  -1e300,
  5e-324,
];

export function nested(random: SeededRandom, depth: number): unknown {
  let value: unknown = random.pick([1, 'x', null, {}, []]);
  for (let i = 0; i < depth; i++)
    value = random.chance(0.5) ? [value] : { [random.pick(['a', 'topics', 'partitions', '__proto__'])]: value };
  return value;
}

/**
 * JSON text nested `depth` levels, built as text: faster than building the value for depths of
 * hundreds of thousands of levels, sent as frames or bodies written by hand.
 */
export function deepJsonText(random: SeededRandom, depth: number): string {
  return random.chance(0.5)
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

export function randomString(random: SeededRandom): string {
  return random.weighted<() => string>([
    [5, () => random.pick(NASTY_STRINGS)],
    [3, () => `s${random.int(0, 20)}`],
    [1, () => 'y'.repeat(random.pick([1_000, 10_000, 100_000]))],
    [1, () => String.fromCharCode(...Array.from({ length: random.int(1, 12) }, () => random.int(0, 0xffff)))],
  ])();
}

/** Any value JSON (and socket.io) can carry, biased towards the ones validators get wrong. */
export function randomValue(random: SeededRandom, budget = 3): unknown {
  return random.weighted<() => unknown>([
    [2, () => null],
    [1, () => undefined],
    [2, () => random.chance(0.5)],
    [4, () => random.pick(NASTY_NUMBERS)],
    [4, () => randomString(random)],
    [budget > 0 ? 3 : 0, () => Array.from({ length: random.int(0, 4) }, () => randomValue(random, budget - 1))],
    [
      budget > 0 ? 3 : 0,
      () =>
        Object.fromEntries(
          Array.from({ length: random.int(0, 4) }, () => [
            randomString(random).slice(0, 20),
            randomValue(random, budget - 1),
          ]),
        ),
    ],
    [1, () => nested(random, random.pick([50, 101, 2_000, 3_000]))],
    [1, () => Array.from({ length: random.pick([1_000, 20_000]) }, () => random.int(-1, 100))],
  ])();
}

/**
 * A copy of a valid payload with one to three mutations at random paths: a field removed, replaced
 * by a random value or a value of another type, or an array emptied or blown up.
 */
export function mutate(random: SeededRandom, valid: unknown): unknown {
  // `valid` is generated for this case alone: mutated in place.
  const mutations = random.int(1, 3);
  let root = valid;
  for (let m = 0; m < mutations; m++) {
    const containers = collectContainers(root);
    if (containers.length === 0 || random.chance(0.05)) {
      root = randomValue(random);
      continue;
    }
    const target = random.pick(containers);
    const keys = Object.keys(target);
    if (keys.length === 0) {
      // As JSON.parse makes it: an own property, even when named `__proto__`.
      Object.defineProperty(target, randomString(random).slice(0, 10), {
        value: randomValue(random),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      continue;
    }
    const key = random.pick(keys);
    const record = target as Record<string, unknown>;
    random.weighted<() => void>([
      [2, () => void delete record[key]],
      [5, () => void (record[key] = randomValue(random))],
      [1, () => void (record[key] = Array.isArray(record[key]) ? [] : [record[key]])],
      // Distinct copies of a small value, in a payload still small: a later mutation of one shared
      // copy, or copies of copies, would make hundreds of megabytes.
      [
        1,
        () =>
          void (record[key] =
            (jsonText(record[key])?.length ?? 0) < 100 && (jsonText(root)?.length ?? 0) < 100_000
              ? Array.from({ length: random.pick([100, 5_000]) }, () => copyOf(record[key]))
              : []),
      ],
      [1, () => void (record[key] = nested(random, random.pick([99, 200, 3_000])))],
    ])();
  }
  return root;
}

/** A copy of a small JSON value (its text is under 100 characters). */
function copyOf(value: unknown): unknown {
  const text = jsonText(value);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

/**
 * The objects and arrays of the top few levels: mutations never go inside a deep value an earlier one
 * planted, so a few mutations cannot stack deep values on each other without bound.
 */
function collectContainers(value: unknown): object[] {
  const out: object[] = [];
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0 && out.length < 200) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object' || depth > 8) continue;
    out.push(v);
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return out;
}
