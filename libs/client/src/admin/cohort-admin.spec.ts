import { CohortError } from '../errors/cohort-error';
import { CohortAdmin } from './cohort-admin';

interface SeenRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

type Answer = { status: number; body?: unknown } | Error | DOMException;

/** A fetch that records each request and answers from a script, one entry per call. */
function fakeFetch(answers: Answer[]): { fetch: typeof fetch; seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  const fetchImpl = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    seen.push({
      url: String(input),
      method: init.method ?? 'GET',
      headers: { ...(init.headers as Record<string, string>) },
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const answer = answers.shift();
    if (!answer) throw new Error('unexpected request');
    if (!('status' in answer)) throw answer;
    const text =
      answer.body === undefined ? null : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    return new Response(text, { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch: fetchImpl as typeof fetch, seen };
}

/** What Node's fetch throws when nothing listens on the port. */
function refused(): Error {
  return new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
  });
}

function timedOut(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

describe('CohortAdmin', () => {
  it('sends each call to its REST route with JSON bodies and query strings', async () => {
    const { fetch, seen } = fakeFetch([
      { status: 200, body: [] },
      { status: 200, body: { groupId: 'g/1' } },
      { status: 204 },
      { status: 200, body: { topics: [] } },
      { status: 200, body: { groupId: 'g', dryRun: true, offsets: [] } },
      { status: 201, body: { name: 'orders', partitions: 3, endOffsets: {} } },
      { status: 200, body: { name: 'orders', partitions: 6, endOffsets: {} } },
      { status: 200, body: { name: 'orders', partitions: 6, endOffsets: { 0: 5 } } },
      { status: 200, body: { deleted: [] } },
      { status: 200, body: { assignments: {} } },
    ]);
    const admin = new CohortAdmin({ urls: ['http://node-a:3000/'], fetch });
    await admin.listGroups({ states: ['Stable', 'Empty'] });
    await expect(admin.describeGroup('g/1')).resolves.toEqual({ groupId: 'g/1' });
    await expect(admin.deleteGroup('g')).resolves.toBeUndefined();
    await admin.deleteOffsets('g', 'orders', 2);
    await admin.resetOffsets('g', { allTopics: true, strategy: 'shift', value: -10 });
    await admin.createTopic('orders', 3);
    await admin.alterTopic('orders', 6);
    await admin.reportOffsets('orders', [{ partition: 0, endOffset: 5 }]);
    await admin.deleteAcls([{ principal: 'User:bob' }]);
    await admin.assign('range', {
      partitionsPerTopic: { orders: 6 },
      members: [{ memberId: 'a', topics: ['orders'] }],
    });
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET http://node-a:3000/v1/groups?state=Stable%2CEmpty',
      'GET http://node-a:3000/v1/groups/g%2F1',
      'DELETE http://node-a:3000/v1/groups/g',
      'DELETE http://node-a:3000/v1/groups/g/offsets?topic=orders&partition=2',
      'POST http://node-a:3000/v1/groups/g/offsets/reset',
      'POST http://node-a:3000/v1/topics',
      'PATCH http://node-a:3000/v1/topics/orders',
      'PUT http://node-a:3000/v1/topics/orders/end-offsets',
      'DELETE http://node-a:3000/v1/acls',
      'POST http://node-a:3000/v1/assignors/range/assign',
    ]);
    expect(seen.map((r) => r.body)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      { allTopics: true, strategy: 'shift', value: -10 },
      { name: 'orders', partitions: 3 },
      { partitions: 6 },
      { partitions: [{ partition: 0, endOffset: 5 }] },
      { filters: [{ principal: 'User:bob' }] },
      { partitionsPerTopic: { orders: 6 }, members: [{ memberId: 'a', topics: ['orders'] }] },
    ]);
    expect(seen[4].headers['content-type']).toBe('application/json');
  });

  it('leaves out filters that are not given', async () => {
    const { fetch, seen } = fakeFetch([
      { status: 200, body: [] },
      { status: 200, body: [] },
    ]);
    const admin = new CohortAdmin({ urls: ['http://a'], fetch });
    await admin.listGroups();
    await admin.listAcls({ resourceType: 'GROUP', resourceName: 'payments' });
    expect(seen.map((r) => r.url)).toEqual([
      'http://a/v1/groups',
      'http://a/v1/acls?resourceType=GROUP&resourceName=payments',
    ]);
  });

  it('rejects with a CohortError named after the Kafka error of the REST body', async () => {
    const { fetch } = fakeFetch([
      {
        status: 404,
        body: { statusCode: 404, errorCode: 69, error: 'GROUP_ID_NOT_FOUND', message: "group 'x' does not exist" },
      },
    ]);
    const error = await new CohortAdmin({ urls: ['http://a'], fetch }).describeGroup('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CohortError);
    expect(error).toMatchObject({
      code: 69,
      name: 'GROUP_ID_NOT_FOUND',
      status: 404,
      retriable: false,
      message: "group 'x' does not exist",
    });
  });

  it('turns an error answer without a Kafka body into a CohortError by its HTTP status', async () => {
    const { fetch } = fakeFetch([{ status: 502, body: '<html>bad gateway</html>' }]);
    const error = await new CohortAdmin({ urls: ['http://a'], fetch }).cluster().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -1, status: 502, retriable: true });
  });

  it('sends the token as a bearer header, asking a token function before every call', async () => {
    const { fetch, seen } = fakeFetch([
      { status: 200, body: [] },
      { status: 200, body: [] },
    ]);
    let issued = 0;
    const admin = new CohortAdmin({ urls: ['http://a'], fetch, token: async () => `jwt-${++issued}` });
    await admin.listTopics();
    await admin.listTopics();
    expect(seen.map((r) => r.headers.authorization)).toEqual(['Bearer jwt-1', 'Bearer jwt-2']);
  });

  it('reports a failing token function as an authentication error without calling the node', async () => {
    const { fetch, seen } = fakeFetch([]);
    const admin = new CohortAdmin({
      urls: ['http://a'],
      fetch,
      token: () => Promise.reject(new Error('vault sealed')),
    });
    await expect(admin.listTopics()).rejects.toMatchObject({ name: 'SASL_AUTHENTICATION_FAILED', code: 58 });
    expect(seen).toHaveLength(0);
  });

  it('moves on to the next URL when a node cannot be reached, and starts there next time', async () => {
    const { fetch, seen } = fakeFetch([refused(), { status: 200, body: [] }, { status: 200, body: [] }]);
    const admin = new CohortAdmin({ urls: ['http://a', 'http://b'], fetch });
    await admin.listGroups();
    await admin.listGroups();
    expect(seen.map((r) => r.url)).toEqual(['http://a/v1/groups', 'http://b/v1/groups', 'http://b/v1/groups']);
  });

  it('does not move on after an HTTP error: the node answered', async () => {
    const { fetch, seen } = fakeFetch([
      { status: 409, body: { statusCode: 409, errorCode: 68, error: 'NON_EMPTY_GROUP', message: 'busy' } },
    ]);
    const admin = new CohortAdmin({ urls: ['http://a', 'http://b'], fetch });
    await expect(admin.deleteGroup('g')).rejects.toMatchObject({ name: 'NON_EMPTY_GROUP', status: 409 });
    expect(seen).toHaveLength(1);
  });

  it('names every node it tried when none can be reached', async () => {
    const { fetch } = fakeFetch([refused(), refused()]);
    const admin = new CohortAdmin({ urls: ['http://a', 'http://b'], fetch });
    const error = await admin.cluster().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'NETWORK_EXCEPTION', code: 13, retriable: true });
    expect((error as Error).message).toContain('http://a: fetch failed (ECONNREFUSED)');
    expect((error as Error).message).toContain('http://b: fetch failed (ECONNREFUSED)');
  });

  it('retries a timed-out read on the next node but not a timed-out write, which may have been applied', async () => {
    const read = fakeFetch([timedOut(), { status: 200, body: [] }]);
    await expect(new CohortAdmin({ urls: ['http://a', 'http://b'], fetch: read.fetch }).listTopics()).resolves.toEqual(
      [],
    );
    expect(read.seen).toHaveLength(2);
    const write = fakeFetch([timedOut(), { status: 201, body: {} }]);
    const error = new CohortAdmin({ urls: ['http://a', 'http://b'], fetch: write.fetch, timeoutMs: 50 }).createTopic(
      't',
      1,
    );
    await expect(error).rejects.toMatchObject({ name: 'REQUEST_TIMED_OUT', code: 7, retriable: true });
    expect(write.seen).toHaveLength(1);
  });

  it('gives up on a node that does not answer within timeoutMs', async () => {
    const hanging = ((_: unknown, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      )) as typeof fetch;
    const admin = new CohortAdmin({ urls: ['http://a'], fetch: hanging, timeoutMs: 20 });
    await expect(admin.listGroups()).rejects.toMatchObject({ name: 'REQUEST_TIMED_OUT' });
  });

  it('refuses options without a usable URL', () => {
    expect(() => new CohortAdmin({ urls: [] })).toThrow(CohortError);
    expect(() => new CohortAdmin({ urls: ['localhost:3000'] })).toThrow(/http\(s\) URL/);
  });
});
