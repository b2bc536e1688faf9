import type { RestRoute } from '../support/rest-route';
import { jsonText } from './json-text';
import type { SeededRandom } from './seeded-random';
import type { FuzzTargets } from './socket-cases';
import { deepJsonText, mutate, nested, randomString, randomValue } from './value-generators';

export interface RestCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Sent as is when a string (possibly not JSON), else as JSON; undefined: no body. */
  body: string | undefined;
}

/** The routes of `/docs-json` (every controller route, including ones added later), and a few that do not exist. */
export async function discoverRoutes(url: string): Promise<RestRoute[]> {
  const document = (await (await fetch(`${url}/docs-json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
  );
  return [
    ...routes,
    { method: 'GET', path: '/v1/nothing-here' },
    { method: 'POST', path: '/v1/groups' },
    { method: 'GET', path: '/docs-json' },
  ];
}

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) goes out as the bytes of its
 * UTF-8-like encoding, an invalid percent-escape the server has to cope with.
 */
function encodePart(text: string): string {
  let out = '';
  for (const c of text) {
    const unit = c.charCodeAt(0);
    // A lone surrogate is one code unit in [D800, DFFF] that for..of yields alone.
    if (c.length === 1 && unit >= 0xd800 && unit <= 0xdfff)
      out += `%ED%${(0x80 | ((unit >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (unit & 0x3f)).toString(16).toUpperCase()}`;
    else out += encodeURIComponent(c);
  }
  return out;
}

/** A valid body for the routes that take one, the start of a mutation. */
function validBody(random: SeededRandom, route: RestRoute, t: FuzzTargets): unknown {
  const topic = random.pick(['fz-t', t.canaryTopic, `fz-new-${random.int(0, 50)}`]);
  if (route.path === '/v1/topics')
    return { name: topic === t.canaryTopic ? 'fz-t' : topic, partitions: random.int(1, 8) };
  if (route.path.endsWith('/end-offsets')) return { partitions: [{ partition: 0, endOffset: random.int(0, 1_000) }] };
  if (route.path === '/v1/topics/{name}') return { partitions: random.int(1, 16) };
  if (route.path.endsWith('/assign')) {
    return {
      partitionsPerTopic: { [topic]: random.int(0, 50) },
      members: Array.from({ length: random.int(1, 5) }, (_, i) => ({
        memberId: `m${i}`,
        topics: [topic],
        ownedPartitions: [{ topic, partitions: [i] }],
        generationId: 1,
        rackId: null,
      })),
    };
  }
  if (route.path.endsWith('/offsets'))
    return { topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: random.int(0, 100) }] }] };
  return random.chance(0.5) ? {} : undefined;
}

function fillPath(random: SeededRandom, path: string, t: FuzzTargets): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'groupId')
      return encodePart(
        random.weighted([
          [3, t.canaryGroup],
          [3, `fz-${random.int(0, 4)}`],
          [2, randomString(random).slice(0, 300)],
        ]),
      );
    // Growing the canary's topic would rebalance it legitimately: topic routes aim elsewhere.
    if (name === 'name' && !path.includes('assignors'))
      return encodePart(
        random.weighted([
          [4, 'fz-t'],
          [2, `fz-new-${random.int(0, 50)}`],
          [2, randomString(random).slice(0, 300).replace(t.canaryTopic, 'x')],
        ]),
      );
    if (name === 'name')
      return encodePart(
        random.pick([
          'range',
          'roundrobin',
          'sticky',
          'cooperative-sticky',
          'least-loaded',
          'nope',
          '__proto__',
          'toString',
          randomString(random).slice(0, 50),
        ]),
      );
    return encodePart(randomString(random).slice(0, 100));
  });
}

function randomQuery(random: SeededRandom, t: FuzzTargets): string {
  if (random.chance(0.5)) return '';
  const keys = ['groupId', 'state', 'topic', 'partition', 'principal', '__proto__', 'x'];
  const pairs = Array.from({ length: random.int(1, 4) }, () => {
    const value = random.weighted([
      [2, t.canaryGroup],
      [1, 'fz-t'],
      [3, randomString(random).slice(0, 200)],
      [1, String(random.int(-5, 5))],
    ]);
    return `${encodePart(random.pick(keys))}${random.chance(0.1) ? '[]' : ''}=${encodePart(value)}`;
  });
  return `?${pairs.join('&')}`;
}

function randomHeaders(random: SeededRandom): Record<string, string> {
  const headers: Record<string, string> = {};
  headers['content-type'] = random.weighted([
    [8, 'application/json'],
    [1, 'text/plain'],
    [1, 'application/json; charset=utf-7'],
    [1, 'application/x-www-form-urlencoded'],
    [1, 'multipart/form-data; boundary=x'],
    [1, 'application/json; charset=latin1'],
  ]);
  if (random.chance(0.1))
    headers.authorization = random.pick(['Bearer', 'Bearer x', 'Basic Zm9vOmJhcg==', `Bearer ${'a'.repeat(5_000)}`]);
  if (random.chance(0.05)) headers.accept = random.pick(['text/html', '*/*', 'application/xml']);
  if (random.chance(0.05)) headers['content-encoding'] = random.pick(['gzip', 'deflate', 'br', 'bogus']);
  if (random.chance(0.03)) headers['x-http-method-override'] = 'DELETE';
  return headers;
}

/** One REST request: any route (or none), filled or random parameters, and a valid, mutated or broken body. */
export function restCase(random: SeededRandom, routes: readonly RestRoute[], targets: FuzzTargets): RestCase {
  const route = random.pick(routes);
  const method = random.chance(0.9)
    ? route.method
    : random.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']);
  const path = fillPath(random, route.path, targets) + randomQuery(random, targets);
  const valid = validBody(random, route, targets);
  let body: string | undefined = random.weighted<() => string | undefined>([
    [3, () => jsonText(valid)],
    [8, () => jsonText(mutate(random, valid ?? {}))],
    [2, () => jsonText(randomValue(random))],
    [1, () => jsonText(nested(random, random.pick([101, 3_000])))],
    [1, () => deepJsonText(random, random.pick([10_000, 150_000, 400_000]))],
    [
      1,
      () =>
        random.pick([
          '{',
          '{"a":',
          'nul',
          '[1,]',
          '\u0000',
          '{"__proto__":{"polluted":1}}',
          '{"constructor":{"prototype":{"polluted":1}}}',
          '"x"',
          '1e999',
        ]),
    ],
    [1, () => undefined],
  ])();
  if (method === 'GET' || method === 'HEAD') body = undefined;
  return { method, path, headers: randomHeaders(random), body };
}
