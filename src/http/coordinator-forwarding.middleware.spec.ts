import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode } from '@cohort/protocol';
import type { CohortNode } from '../node/cohort-node';
import type { NodeView } from '../node/cluster-status';
import { CoordinatorForwardingMiddleware, UNREACHABLE_HEADER, groupIdOf } from './coordinator-forwarding.middleware';
import { FORWARDED_HEADER } from '../security/cluster/node-request-signer';

/** A response double that resolves once the middleware has answered. */
function capture() {
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const reply = { status: 0, body: undefined as unknown, headers: {} as Record<string, string> };
  const response = {
    status(code: number) {
      reply.status = code;
      return response;
    },
    json(body: unknown) {
      reply.body = body;
      done();
    },
    send(body: Buffer) {
      reply.body = JSON.parse(body.toString()) as unknown;
      done();
    },
    setHeader(name: string, value: string) {
      reply.headers[name.toLowerCase()] = value;
    },
  };
  return { response, reply, finished };
}

describe('CoordinatorForwardingMiddleware (cluster mode)', () => {
  let server: Server;
  let selfUrl: string;
  const seenHeaders: string[] = [];
  // Connection refused at once: a node registered as alive that does not answer.
  const silent: NodeView = { nodeId: 1, url: 'http://127.0.0.1:1', alive: true };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seenHeaders.push(String(req.headers[FORWARDED_HEADER]));
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify([
          { groupId: 'zeta', coordinator: 0 },
          { groupId: 'alpha', coordinator: 0 },
        ]),
      );
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    selfUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

  const nodeWith = (leader: NodeView | null): CohortNode =>
    ({
      mode: 'redis',
      coordinator: { partitionFor: () => 3 },
      cluster: {
        nodeId: 0,
        nodes: () => [
          { nodeId: 0, url: selfUrl, alive: true },
          silent,
          { nodeId: 2, url: 'http://127.0.0.1:2', alive: false },
        ],
        leaderOf: () => leader,
      },
    }) as unknown as CohortNode;

  it('merges the lists of the nodes that answer, sorted, and names the ones that did not', async () => {
    const { response, reply, finished } = capture();
    new CoordinatorForwardingMiddleware(nodeWith(null)).use(
      { method: 'GET', originalUrl: '/v1/groups', headers: {} },
      response,
      (error) => {
        throw error ?? new Error('next() was called');
      },
    );
    await finished;
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      { groupId: 'alpha', coordinator: 0 },
      { groupId: 'zeta', coordinator: 0 },
    ]);
    // Node 2 is not alive, so it is not asked; node 1 is and does not answer.
    expect(reply.headers[UNREACHABLE_HEADER]).toBe('1');
    expect(seenHeaders).toContain('0');
  });

  it('answers 503 COORDINATOR_NOT_AVAILABLE, naming the node, when the coordinator does not answer', async () => {
    const { response, reply, finished } = capture();
    new CoordinatorForwardingMiddleware(nodeWith(silent)).use(
      { method: 'GET', originalUrl: '/v1/groups/g/offsets', headers: {} },
      response,
      () => {
        throw new Error('next() was called');
      },
    );
    await finished;
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ statusCode: 503, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE });
    expect((reply.body as { message: string }).message).toContain('node 1 at http://127.0.0.1:1');
  });

  it('leaves to the local controllers: its own groups, forwarded requests, other paths, and embedded mode', () => {
    const passes = (node: CohortNode, originalUrl: string, headers: Record<string, string> = {}): boolean => {
      let passed = false;
      new CoordinatorForwardingMiddleware(node).use(
        { method: 'GET', originalUrl, headers },
        capture().response,
        () => (passed = true),
      );
      return passed;
    };
    expect(passes(nodeWith({ nodeId: 0, url: selfUrl, alive: true }), '/v1/groups/g')).toBe(true);
    expect(passes(nodeWith(silent), '/v1/groups/g', { [FORWARDED_HEADER]: '2' })).toBe(true);
    expect(passes(nodeWith(silent), '/v1/topics')).toBe(true);
    expect(passes({ ...nodeWith(silent), mode: 'embedded' } as CohortNode, '/v1/groups/g')).toBe(true);
  });

  it.each([
    ['/v1/groups', null],
    ['/v1/groups/', null],
    ['/v1/groups/orders', 'orders'],
    ['/v1/groups/a%2Fb/offsets', 'a/b'],
    ['/v1/groups/g/rebalances', 'g'],
    ['/v1/groupsx', undefined],
    ['/v1/topics/t', undefined],
    ['/v1/groups/%E0%A4%A', undefined],
  ])('reads the group of %s as %p', (path, expected) => {
    expect(groupIdOf(path)).toBe(expected);
  });
});
