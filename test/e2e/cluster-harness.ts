import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import type { Socket as TcpSocket } from 'node:net';
import { Redis } from 'ioredis';
import type { Socket } from 'socket.io-client';
import request from 'supertest';
import { ErrorCode, errorName } from '@cohort/protocol';
import { freePort } from '@cohort/replication/testing';
import { createCohortApp } from '../../src/create-cohort-app';
import type { ClusterNode } from '../../src/node/cluster/cluster-node';
import { COHORT_NODE } from '../../src/node/cohort-node';
import { eventually } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { TEST_ENV, tempDataDir } from '../support/test-app';

/**
 * Three cluster-mode nodes in this process for the cluster e2e tests: whole apps with their own
 * DATA_DIR, a CLUSTER_ID of their own, short timeouts so that failovers take seconds.
 */
export const PARTITIONS = 6;

export interface RunningNode {
  nodeId: number;
  url: string;
  app: INestApplication;
  /** Every TCP connection of its listener (clients' sockets included), for `kill`. */
  connections: Set<TcpSocket>;
}

export type Fetched = {
  errorCode: number;
  topics: { partitions: { partitionIndex: number; committedOffset: number }[] }[];
};

export class ClusterHarness {
  readonly clusterId = `e2e-cluster-${process.pid}-${process.hrtime.bigint().toString(36)}`;
  readonly nodes = new Map<number, RunningNode>();
  private readonly dirs = [0, 1, 2].map(() => tempDataDir('cohort-cluster-'));
  private readonly sockets: Socket[] = [];

  constructor(
    readonly redisUrl: string,
    /** More variables for every node (authentication, the cluster secret...). */
    private readonly extraEnv: Record<string, string> = {},
    /** Sent with the harness's own REST calls (an `authorization` header when authentication is on). */
    private readonly headers: Record<string, string> = {},
  ) {}

  /** Starts node `nodeId`; `env` overrides the harness's settings (e.g. longer timeouts). */
  async startNode(nodeId: number, env: Record<string, string> = {}): Promise<RunningNode> {
    const port = await freePort();
    const app = await createCohortApp({
      ...TEST_ENV,
      PORT: String(port),
      CLUSTER_MODE: 'redis',
      REDIS_URL: this.redisUrl,
      CLUSTER_ID: this.clusterId,
      NODE_ID: String(nodeId),
      DATA_DIR: this.dirs[nodeId].dir,
      REPLICATION_PORT: '0',
      OFFSETS_TOPIC_NUM_PARTITIONS: String(PARTITIONS),
      NODE_SESSION_TIMEOUT_MS: '3000',
      REPLICA_LAG_TIME_MAX_MS: '3000',
      REPLICA_FETCH_WAIT_MAX_MS: '100',
      ...this.extraEnv,
      ...env,
    });
    await app.listen(port, '127.0.0.1');
    const connections = new Set<TcpSocket>();
    (app.getHttpServer() as Server).on('connection', (socket: TcpSocket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
    });
    const node = { nodeId, url: `http://127.0.0.1:${port}`, app, connections };
    this.nodes.set(nodeId, node);
    return node;
  }

  /** Until every partition has a leader and a full ISR, as `nodeId` sees it. */
  async formed(nodeId: number, what: string): Promise<void> {
    await eventually(
      async () => {
        const { body } = await request(this.nodes.get(nodeId)!.url).get('/v1/cluster/partitions').set(this.headers);
        return (
          Array.isArray(body) &&
          body.length === PARTITIONS &&
          body.every((p: { leader: number | null; isr: number[] }) => p.leader !== null && p.isr.length === 3)
        );
      },
      what,
      60_000,
    );
    await this.ready(what);
  }

  /**
   * Every running node serves what it leads (its readiness). A partition's leader is known to the
   * cluster before the new leader has loaded its coordinator shard; until then it answers
   * NOT_COORDINATOR, which a test's first request must not meet.
   */
  async ready(what: string): Promise<void> {
    await eventually(
      async () => [...this.nodes.values()].every((node) => (node.app.get(COHORT_NODE) as ClusterNode).isReady()),
      `${what}, every node serving the partitions it leads`,
      60_000,
    );
  }

  /** Starts nodes 0, 1 and 2 and waits until the cluster is formed. */
  async startAll(env: Record<string, string> = {}): Promise<void> {
    for (const id of [0, 1, 2]) await this.startNode(id, env);
    await this.formed(0, 'all partitions led with a full ISR');
  }

  /** Kills node `nodeId` as SIGKILL would, as far as the cluster can tell (nothing flushed or deregistered). */
  async crash(nodeId: number): Promise<RunningNode> {
    const node = this.nodes.get(nodeId)!;
    await (node.app.get(COHORT_NODE) as ClusterNode).crash();
    await node.app.close();
    this.nodes.delete(nodeId);
    return node;
  }

  /**
   * SIGKILL as every peer sees it, clients included: the listener stops accepting and every open TCP
   * connection is cut at once (a killed process's sockets are closed by the kernel, with no goodbye
   * and no push), then the node crashes as `crash` does.
   */
  async kill(nodeId: number): Promise<RunningNode> {
    const node = this.nodes.get(nodeId)!;
    const server = node.app.getHttpServer() as Server;
    server.close();
    for (const socket of node.connections) socket.destroy();
    await (node.app.get(COHORT_NODE) as ClusterNode).crash();
    await node.app.close().catch(() => undefined);
    this.nodes.delete(nodeId);
    return node;
  }

  async socketTo(url: string): Promise<Socket> {
    const socket = await connect(url);
    this.sockets.push(socket);
    return socket;
  }

  /** FindCoordinator on a live node, then OffsetFetch there, until it succeeds; records what it met on the way. */
  async retryUntilServed(groupId: string): Promise<{ seen: string[]; fetched: Fetched; at: RunningNode }> {
    const seen: string[] = [];
    let fetched: Fetched | null = null;
    let at: RunningNode | undefined;
    await eventually(
      async () => {
        const entry = [...this.nodes.values()][0];
        const found = await emit<{ errorCode: number; nodeId: number }>(
          await this.socketTo(entry.url),
          'FindCoordinator',
          { key: groupId },
        );
        at = this.nodes.get(found.nodeId);
        if (found.errorCode !== ErrorCode.NONE) seen.push(errorName(found.errorCode));
        if (found.errorCode !== ErrorCode.NONE || !at) {
          if (found.errorCode === ErrorCode.NONE) seen.push('dead node named'); // until its registration expires
          return false;
        }
        const response = await emit<Fetched>(await this.socketTo(at.url), 'OffsetFetch', { groupId, topics: null });
        if (response.errorCode !== ErrorCode.NONE) seen.push(errorName(response.errorCode));
        fetched = response;
        return response.errorCode === ErrorCode.NONE;
      },
      `a coordinator serving ${groupId}`,
      60_000,
    );
    return { seen, fetched: fetched!, at: at! };
  }

  async dispose(): Promise<void> {
    for (const s of this.sockets) s.disconnect();
    await Promise.all([...this.nodes.values()].map((n) => n.app.close().catch(() => undefined)));
    const admin = new Redis(this.redisUrl, {
      disconnectTimeout: 100,
      maxRetriesPerRequest: 1,
      retryStrategy: () => null,
    });
    try {
      const keys = await admin.keys(`${this.clusterId}:*`);
      if (keys.length > 0) await admin.del(...keys);
      await admin.quit();
    } catch {
      admin.disconnect(); // a Redis of the test's own may be gone already
    }
    for (const d of this.dirs) d.remove();
  }
}

export function commitRequest(groupId: string, offsets: number[]) {
  return {
    groupId,
    generationId: -1,
    memberId: '',
    topics: [
      {
        name: 'ledger',
        partitions: offsets.map((committedOffset, partitionIndex) => ({
          partitionIndex,
          committedOffset,
          committedMetadata: `m${committedOffset}`,
        })),
      },
    ],
  };
}

/**
 * The group-level error code followed by every partition's. A refusal of the whole request (89 when a
 * closed loop outruns RATE_LIMIT_SOCKET_EVENTS_PER_SECOND) carries no topics.
 */
export function commitErrors(response: {
  errorCode: number;
  topics?: { partitions: { errorCode: number }[] }[];
}): number[] {
  return [response.errorCode, ...(response.topics ?? []).flatMap((t) => t.partitions.map((p) => p.errorCode))];
}

export function committedOffsets(response: Fetched): number[] {
  return response.topics
    .flatMap((t) => t.partitions)
    .sort((a, b) => a.partitionIndex - b.partitionIndex)
    .map((p) => p.committedOffset);
}
