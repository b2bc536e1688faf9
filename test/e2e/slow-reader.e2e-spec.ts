import { readFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import type * as P from '@cohort/protocol';
import { GroupMember, eventually } from '../support/group-member';
import { sample } from '../support/prometheus-sample';
import { connect, request } from '../support/socket-client';
import { startNode } from '../support/spawned-node';
import { tempDataDir } from '../support/test-app';

jest.setTimeout(120_000);

const GROUP = 'big-describe';
const MEMBERS = 10;
/** Each member's subscription userData: ten of them make one DescribeGroups answer of about a megabyte. */
const USER_DATA = 'u'.repeat(90_000);
/** The node's heap: room for itself and its default output limit, not for an unbounded backlog. */
const HEAP_MIB = 256;
const ATTACK_MS = 6_000;
const RATE_PER_SECOND = 200;

/** The resident set of process `pid`, in MiB (Linux). */
function rssMib(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
}

/**
 * A client that sends requests with large answers and never reads them (its TCP socket paused): the node
 * must close that connection once its unsent output passes MAX_SOCKET_OUTPUT_BUFFER_BYTES, count it, and
 * live on with bounded memory while every other client is served. Before the limit, the answers piled up
 * in socket.io's write buffer until the heap ran out (`FATAL ERROR: Reached heap limit`).
 */
describe('a client that does not read its answers (e2e, a node with a small heap)', () => {
  it('is disconnected and counted once its unsent output passes the limit, and the node lives on with bounded memory while other clients are served', async () => {
    const data = tempDataDir('cohort-slow-reader-');
    const node = startNode(data.dir, {
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}`,
      GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
    });
    const members: GroupMember[] = [];
    let raw: WebSocket | null = null;
    let died: number | null | undefined;
    void node.exited.then((code) => (died = code));
    try {
      const url = String((await node.summary).summary!.url);
      const created = await fetch(`${url}/v1/topics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'orders', partitions: MEMBERS }),
      });
      expect(created.status).toBe(201);
      for (let i = 0; i < MEMBERS; i++) {
        const member = await GroupMember.connect(url, GROUP, {
          topics: ['orders'],
          serverAssignor: 'range',
          userData: USER_DATA,
          heartbeatIntervalMs: 500,
        });
        members.push(member);
        member.start();
      }
      await eventually(
        () => members.every((m) => m.held().length === 1 && m.assignedGeneration === members[0].assignedGeneration),
        'every member to hold a partition of one generation',
        30_000,
      );
      const observer = await connect(url);
      const described = await request<P.DescribeGroupsResponse>(observer, 'DescribeGroups', { groups: [GROUP] });
      expect(described.groups[0].members).toHaveLength(MEMBERS);
      const answerBytes = JSON.stringify(described).length;
      expect(answerBytes).toBeGreaterThan(MEMBERS * USER_DATA.length);
      const baseline = rssMib(node.pid);

      // The attacker: a raw websocket that completes the socket.io handshake, then stops reading and sends
      // DescribeGroups 200 times a second (about 180 MB a second of answers).
      const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
      raw = socket;
      await new Promise<void>((resolve, reject) => {
        socket.on('message', (message: Buffer) => {
          const text = message.toString();
          if (text.startsWith('0')) socket.send('40');
          else if (text.startsWith('40')) resolve();
        });
        socket.on('error', reject);
      });
      const attackerClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => undefined); // writes to a connection the node closed fail; that is the point
      (socket as unknown as { _socket: { pause(): void } })._socket.pause();
      let sent = 0;
      let peak = baseline;
      const started = Date.now();
      // Every 50 ms, as many requests as keep the rate at 200 a second (timers on a loaded machine run late).
      while (Date.now() - started < ATTACK_MS && died === undefined) {
        const due = Math.floor(((Date.now() - started) * RATE_PER_SECOND) / 1000);
        while (sent < due && socket.readyState === WebSocket.OPEN) {
          socket.send(`42${sent}["DescribeGroups",{"groups":["${GROUP}"]}]`);
          sent++;
        }
        peak = Math.max(peak, rssMib(node.pid));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      socket.terminate();
      await attackerClosed;

      const live = await fetch(`${url}/health/live`).then(
        (response) => response.status,
        () => 'unreachable',
      );
      expect(live).toBe(200);
      expect(died).toBeUndefined();
      // The attack asked for more output than the hard limit (the node closes it there, however soon that is).
      expect(sent * answerBytes).toBeGreaterThan(64 * 1024 * 1024);
      // Bounded: the limit (64 MiB by default) and the node's working room, far from the backlog of the attack.
      expect(peak - baseline).toBeLessThan(160);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(sample(metrics, 'cohort_socket_output_limit_closes_total', { limit: 'hard' })).toBe(1);
      // Everyone else is served: the members heartbeat in their generation, a reading client gets its answer.
      expect(members.flatMap((m) => m.problems)).toEqual([]);
      expect((await members[0].heartbeat()).errorCode).toBe(0);
      const again = await request<P.DescribeGroupsResponse>(observer, 'DescribeGroups', { groups: [GROUP] });
      expect(again.groups[0].members).toHaveLength(MEMBERS);
      observer.close();
    } finally {
      raw?.terminate();
      for (const member of members) await member.vanish();
      if (died === undefined) await node.stop();
      data.remove();
    }
  });
});
