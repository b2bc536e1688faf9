import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { TEST_REDIS_URL } from '@cohort/replication/testing';
import { COHORT_NODE, type CohortNode } from '../../src/node/cohort-node';
import { eventually } from '../support/group-member';
import { tempDataDir } from '../support/test-app';
import { ClusterHarness, PARTITIONS } from './cluster-harness';

jest.setTimeout(120_000);

/**
 * RATE_LIMIT_REST_PER_MINUTE in cluster mode (docs/security.md, "Limits"): a request is counted once,
 * on the node it enters, before that node forwards it or asks every node for the group list; the
 * node a signed call lands on does not count it again. Before, the forwarding node answered 150 of
 * 150 requests with a limit of 60, and each group list reached every node uncounted.
 *
 * Every node runs in this process on 127.0.0.1; each phase's client calls from an address of its own
 * (all of 127.0.0.0/8 is loopback on Linux), so that no count is shared between phases, and nodes call
 * each other from 127.0.0.1.
 */
const LIMIT = 10;
const secrets = tempDataDir('cohort-rate-secret-');
writeFileSync(join(secrets.dir, 'cluster.secret'), `${randomBytes(48).toString('base64')}\n`);
const cluster = new ClusterHarness(TEST_REDIS_URL, {
  CLUSTER_SECRET_FILE: join(secrets.dir, 'cluster.secret'),
  RATE_LIMIT_REST_PER_MINUTE: String(LIMIT),
});
const nodeOf = (id: number) => cluster.nodes.get(id)!.app.get<CohortNode>(COHORT_NODE);
const urlOf = (id: number) => cluster.nodes.get(id)!.url;

/** The status of a GET from a given local address (node's http: supertest cannot choose one). */
function statusOf(url: string, path: string, localAddress: string): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path, localAddress }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function statuses(url: string, path: string, localAddress: string, count: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push(await statusOf(url, path, localAddress));
  return seen;
}

const answered = (seen: number[]) => seen.filter((status) => status !== 429).length;

afterAll(async () => {
  await cluster.dispose();
  secrets.remove();
});

describe('the REST rate limit in cluster mode', () => {
  /** Node 1 coordinates `groupOnB`; node 2 forwards to it; node 0 serves the group lists. */
  let groupOnB: string;

  beforeAll(async () => {
    for (const id of [0, 1, 2]) await cluster.startNode(id);
    // Formed, as every node sees it, without REST (which the low limit would refuse).
    await eventually(
      () =>
        [0, 1, 2].every((id) =>
          Array.from({ length: PARTITIONS }, (_, p) => nodeOf(id).cluster.leaderOf(p)).every(
            (leader) => leader !== null,
          ),
        ) &&
        [0, 1, 2].every(
          (id) =>
            nodeOf(id)
              .cluster.nodes()
              .filter((n) => n.alive).length === 3,
        ),
      'every partition led, every node alive, as each node sees it',
      60_000,
    );
    const entry = nodeOf(2);
    for (let i = 0; ; i++) {
      const candidate = `rated-${i}`;
      if (entry.cluster.leaderOf(entry.coordinator.partitionFor(candidate))?.nodeId === 1) {
        groupOnB = candidate;
        break;
      }
      if (i > 1000) throw new Error('no group coordinated by node 1');
    }
  });

  it('counts a group list where it enters, once, though it asks every node', async () => {
    const seen = await statuses(urlOf(0), '/v1/groups', '127.0.0.6', LIMIT + 3);
    expect(answered(seen)).toBe(LIMIT);
    expect(seen.slice(LIMIT)).toEqual([429, 429, 429]);
  });

  it('counts a forwarded request on the node it enters, before forwarding it', async () => {
    const seen = await statuses(urlOf(2), `/v1/groups/${groupOnB}/offsets`, '127.0.0.5', LIMIT + 5);
    expect(answered(seen)).toBe(LIMIT);
    expect(seen.slice(LIMIT)).toEqual([429, 429, 429, 429, 429]);
  });

  it('does not count again on the node a signed call lands on', async () => {
    // Node 1 received the forwarded requests and its share of every group list, all from 127.0.0.1,
    // signed; a client at 127.0.0.1 still has its whole allowance there.
    const seen = await statuses(urlOf(1), `/v1/groups/${groupOnB}/offsets`, '127.0.0.1', LIMIT + 1);
    expect(answered(seen)).toBe(LIMIT);
    expect(seen[LIMIT]).toBe(429);
  });
});
