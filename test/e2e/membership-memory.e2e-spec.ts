import { readFileSync } from 'node:fs';
import type { Socket } from 'socket.io-client';
import { writeTokensFile } from '../support/auth-fixtures';
import { sample } from '../support/prometheus-sample';
import { connect, request as emit } from '../support/socket-client';
import { startNode } from '../support/spawned-node';
import { tempDataDir } from '../support/test-app';

jest.setTimeout(90_000);

/**
 * A real node process with a 160 MiB heap and authentication (docs/security.md, "What one principal's
 * members can hold"), its limits scaled down (8 MiB, 2000 members) so that the attack stays short: one
 * principal sending JoinGroups with ~0.9 MB of protocols and thousands of KIP-394 pending member ids
 * is refused with 89 THROTTLING_QUOTA_EXCEEDED once it holds MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL
 * or MAX_MEMBERS_PER_PRINCIPAL; the node survives with its resident memory bounded; another principal
 * still joins; and closing the sockets frees the pending ids within MEMBER_DISCONNECT_GRACE_MS, not at
 * their 30-minute session timeout.
 */
const TOKENS = { admin: 'admin-token', attacker: 'attacker-token', victim: 'victim-token' };
const BIG_JOINS = 60;
const PENDING_SOCKETS = 6;
const PENDING_PER_SOCKET = 500;
const MAX_MEMBERS = 2000;
const MiB = 1024 * 1024;

type JoinAnswer = { errorCode: number; memberId: string; errorMessage?: string };

const dir = tempDataDir('cohort-membership-memory-');
let node: ReturnType<typeof startNode>;
let url: string;
const sockets: Socket[] = [];

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(/(\d+)/.exec(line)![1]) * 1024;
}

async function metrics(): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${TOKENS.admin}` } });
  expect(response.status).toBe(200);
  return response.text();
}

async function open(principal: keyof typeof TOKENS): Promise<Socket> {
  const socket = await connect(url, { token: TOKENS[principal] });
  sockets.push(socket);
  return socket;
}

function join(
  socket: Socket,
  groupId: string,
  extra: Record<string, unknown> = {},
  timeoutMs = 30_000,
): Promise<JoinAnswer> {
  return emit<JoinAnswer>(
    socket,
    'JoinGroup',
    {
      groupId,
      memberId: '',
      sessionTimeoutMs: 1_800_000,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: { topics: ['orders'] } }],
      ...extra,
    },
    timeoutMs,
  );
}

beforeAll(async () => {
  const tokensFile = writeTokensFile(dir.dir, {
    'User:admin': TOKENS.admin,
    'User:attacker': TOKENS.attacker,
    'User:victim': TOKENS.victim,
  });
  node = startNode(dir.dir, {
    AUTH_TOKENS_FILE: tokensFile,
    SUPER_USERS: 'User:admin',
    ALLOW_EVERYONE_IF_NO_ACL_FOUND: 'true',
    // Long enough that the big members stay parked in their first join phase for the whole test.
    GROUP_INITIAL_REBALANCE_DELAY_MS: '120000',
    // Below the defaults (10000 members, 32 MiB), so that the attack stays short on a busy machine.
    MAX_MEMBERS_PER_PRINCIPAL: String(MAX_MEMBERS),
    MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL: String(8 * MiB),
    NODE_OPTIONS: '--max-old-space-size=160',
  });
  url = String((await node.summary).summary!.url);
});

afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await node?.stop();
  dir.remove();
});

it('one principal cannot fill the node through membership: its joins past the limits get 89, the node lives, others join, and closed sockets free its pending ids', async () => {
  const rssBefore = rssBytes(node.pid);
  const attacker = await open('attacker');

  // 60 static members with ~0.9 MB of protocols each (54 MB if all were kept), in ten groups made
  // first. An accepted join stays parked (the initial delay); a refused one is answered.
  await Promise.all(Array.from({ length: 10 }, (_, g) => join(attacker, `big-${g}`)));
  const userData = 'x'.repeat(900_000);
  const refusedBig: JoinAnswer[] = [];
  for (let i = 0; i < BIG_JOINS; i++) {
    void join(attacker, `big-${i % 10}`, {
      groupInstanceId: `instance-${i}`,
      protocols: [{ name: 'range', metadata: { topics: ['orders'], userData } }],
    }).then(
      (answer) => refusedBig.push(answer),
      () => undefined,
    );
    if (i % 10 === 9) await waitFor(10);
  }
  // 8 MiB hold 9 of them; every other one is refused, and counted.
  const kept = Math.floor((8 * MiB) / 900_065);
  const refusalsDeadline = Date.now() + 45_000;
  while (refusedBig.length < BIG_JOINS - kept && Date.now() < refusalsDeadline) await waitFor(100);
  expect(refusedBig).toHaveLength(BIG_JOINS - kept);
  expect(refusedBig.every((a) => a.errorCode === 89)).toBe(true);
  expect(refusedBig[0].errorMessage).toContain('MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL=8388608');
  let text = await metrics();
  expect(sample(text, 'cohort_member_quota_refusals_total', { limit: 'metadata-bytes' })).toBe(BIG_JOINS - kept);

  // 3,000 pending member ids asked for from 6 sockets, with a 30-minute session timeout.
  await Promise.all(Array.from({ length: 10 }, (_, g) => join(attacker, `pending-${g}`)));
  const pendingSockets = await Promise.all(Array.from({ length: PENDING_SOCKETS }, () => open('attacker')));
  const answers = (
    await Promise.all(
      pendingSockets.map((socket, s) =>
        Promise.all(Array.from({ length: PENDING_PER_SOCKET }, (_, i) => join(socket, `pending-${(s * 7 + i) % 10}`))),
      ),
    )
  ).flat();
  const handedOut = answers.filter((a) => a.errorCode === 79).length;
  const refused = answers.filter((a) => a.errorCode === 89);
  expect(handedOut + refused.length).toBe(PENDING_SOCKETS * PENDING_PER_SOCKET);
  expect(handedOut).toBe(MAX_MEMBERS - kept - 20); // its big members and the pending ids that made the 20 groups hold the rest
  expect(refused.length).toBeGreaterThan(0);
  expect(refused[0].errorMessage).toContain('MAX_MEMBERS_PER_PRINCIPAL=2000');

  // The node is alive and bounded; another principal joins as usual.
  const rssUnderAttack = rssBytes(node.pid);
  expect(node.stderr()).not.toContain('heap limit');
  expect(rssUnderAttack - rssBefore).toBeLessThan(120 * MiB);
  const victim = await open('victim');
  expect((await join(victim, 'victim-group')).errorCode).toBe(79);

  // Closing the sockets frees the pending ids within MEMBER_DISCONNECT_GRACE_MS (3 s by default).
  for (const socket of pendingSockets) socket.disconnect();
  const deadline = Date.now() + 20_000;
  let freed = 0;
  while (Date.now() < deadline) {
    text = await metrics();
    freed = sample(text, 'cohort_pending_members_expired_total', { reason: 'connection-closed' }) ?? 0;
    if (freed >= handedOut) break;
    await waitFor(250);
  }
  expect(freed).toBe(handedOut);
  const again = await open('attacker');
  expect((await join(again, 'pending-0')).errorCode).toBe(79);
  console.log(
    `membership memory: RSS ${Math.round(rssBefore / MiB)} MiB before, ${Math.round(rssUnderAttack / MiB)} MiB under attack, ` +
      `${Math.round(rssBytes(node.pid) / MiB)} MiB after the sockets closed; ${refusedBig.length} big joins and ${refused.length} pending ids refused`,
  );
});

function waitFor(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
}
