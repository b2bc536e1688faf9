import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import type { AclBinding } from '@cohort/protocol';
import { Authorizer } from '@cohort/security';
import { connect } from '../test/support/socket-client';
import { commitLoad, type LoadResult } from './commit.bench';
import { CohortProcess } from './harness/cohort-process';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { median, ms, perSecond, ratio, table } from './harness/stats';

/**
 * Issue 9: the cost of authorization on the hot path. Two nodes run side by side: one as `npm start`
 * runs it (no authentication, nothing checked), one with static tokens, one principal per socket and
 * `bindings` ACL bindings (each socket's READ on its group and topic, the rest other principals'
 * literal, prefixed and DENY bindings on the same resource types). The same OffsetCommit load as the
 * commit benchmark runs against each in turn, alternating rounds so that a change in the machine's
 * load hits both alike; the figure is the ratio of their throughputs (target ≥ 0.9).
 */
export interface AuthorizationCost {
  open: LoadResult[];
  secured: LoadResult[];
  bindings: number;
}

const ADMIN_TOKEN = 'bench-admin-token';
const tokenOf = (i: number) => `bench-token-${i}`;

export async function authorizationCost(
  sockets: number,
  bindings: number,
  roundMs: number,
  rounds: number,
): Promise<AuthorizationCost> {
  const dir = mkdtempSync(join(tmpdir(), 'cohort-bench-auth-'));
  const principals = [
    { name: 'User:bench-admin', token: ADMIN_TOKEN },
    ...Array.from({ length: sockets }, (_, i) => ({ name: `User:bench-${i}`, token: tokenOf(i) })),
  ];
  writeFileSync(
    join(dir, 'tokens.json'),
    JSON.stringify({
      principals: principals.map((p) => ({
        name: p.name,
        tokenSha256: createHash('sha256').update(p.token).digest('hex'),
      })),
    }),
  );
  const common = { LOG_FLUSH_POLICY: 'replicated' };
  const nodes: CohortProcess[] = [];
  const clients: Record<'open' | 'secured', Socket[]> = { open: [], secured: [] };
  try {
    const [open, secured] = await Promise.all([
      CohortProcess.start(common),
      CohortProcess.start({ ...common, AUTH_TOKENS_FILE: join(dir, 'tokens.json'), SUPER_USERS: 'User:bench-admin' }),
    ]);
    nodes.push(open, secured);
    const acls = benchBindings(sockets, bindings);
    await call(secured, 'POST', '/v1/acls', { acls });
    for (const node of nodes) await call(node, 'POST', '/v1/topics', { name: 'commits', partitions: sockets });
    for (let i = 0; i < sockets; i++) {
      clients.open.push(await connect(open.url, { clientId: `bench-${i}` }));
      clients.secured.push(await connect(secured.url, { clientId: `bench-${i}`, token: tokenOf(i) }));
    }
    const result: AuthorizationCost = { open: [], secured: [], bindings: acls.length };
    for (let round = 0; round < rounds; round++) {
      result.open.push(await commitLoad(clients.open, roundMs, [open]));
      result.secured.push(await commitLoad(clients.secured, roundMs, [secured]));
    }
    const refused = result.secured.reduce((sum, r) => sum + r.errors, 0);
    if (refused > 0)
      throw new Error(`${refused} commits failed on the secured node: the ACLs do not grant what the load needs`);
    return result;
  } finally {
    [...clients.open, ...clients.secured].forEach((c) => c.disconnect());
    await Promise.all(nodes.map((node) => node.dispose()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The authorizer alone, in this process, over the same bindings: nanoseconds per check of a decision
 * already cached (every OffsetCommit after a socket's first) and of one decided from the index (the
 * first check of each principal and resource, and every check right after an ACL change).
 */
export function authorizerCost(
  sockets: number,
  bindings: number,
  checks: number,
): { cachedNs: number; uncachedNs: number } {
  const authorizer = new Authorizer({ superUsers: [], allowEveryoneIfNoAclFound: false });
  authorizer.setAcls(benchBindings(sockets, bindings));
  const time = (run: (i: number) => boolean): number => {
    let allowed = 0;
    const started = process.hrtime.bigint();
    for (let i = 0; i < checks; i++) if (run(i)) allowed++;
    const ns = Number(process.hrtime.bigint() - started) / checks;
    if (allowed === 0) throw new Error('no check was allowed: the bindings do not match the load');
    return ns;
  };
  // Names made up front, as a request's arrive already parsed: the loops time the checks alone.
  const principals = Array.from({ length: sockets }, (_, i) => `User:bench-${i}`);
  const groups = Array.from({ length: sockets }, (_, i) => `bench-commit-${i}`);
  const cached = (i: number) =>
    authorizer.authorize(principals[i % sockets], '127.0.0.1', 'READ', 'GROUP', groups[i % sockets]);
  time(cached); // warm-up: JIT and the cache filled
  const cachedNs = time(cached);
  // Distinct names defeat the cache: each check walks the index (literal, prefixes, wildcard).
  const others = Array.from({ length: 50 }, (_, i) => `User:other-${i}`);
  const fresh = Array.from({ length: checks }, (_, i) => `team-${(i * 4) % bindings}-x${i}`);
  const uncachedNs = time((i) => authorizer.authorize(others[i % 50], '127.0.0.1', 'READ', 'GROUP', fresh[i]));
  return { cachedNs, uncachedNs };
}

/** What the load needs (READ on each socket's group and on the topic) and other principals' bindings up to `total`. */
function benchBindings(sockets: number, total: number): AclBinding[] {
  const binding = (
    principal: string,
    resourceType: AclBinding['resourceType'],
    resourceName: string,
    extra: Partial<AclBinding> = {},
  ): AclBinding => ({
    principal,
    host: '*',
    resourceType,
    resourceName,
    patternType: 'LITERAL',
    operation: 'READ',
    permission: 'ALLOW',
    ...extra,
  });
  const needed = Array.from({ length: sockets }, (_, i) => [
    binding(`User:bench-${i}`, 'GROUP', `bench-commit-${i}`),
    binding(`User:bench-${i}`, 'TOPIC', 'commits'),
  ]).flat();
  const others = Array.from({ length: Math.max(0, total - needed.length) }, (_, j) => {
    const principal = `User:other-${j % 50}`;
    switch (j % 4) {
      case 0:
        return binding(principal, 'GROUP', `team-${j}-`, { patternType: 'PREFIXED' });
      case 1:
        return binding(principal, 'TOPIC', `topic-${j}`, { operation: 'WRITE' });
      case 2:
        return binding(principal, 'GROUP', `bench-commit-${j % Math.max(1, sockets)}`, {
          operation: 'DELETE',
          permission: 'DENY',
        });
      default:
        return binding(principal, 'TOPIC', 'comm', { patternType: 'PREFIXED', operation: 'DESCRIBE' });
    }
  });
  return [...needed, ...others];
}

async function call(node: CohortProcess, method: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${node.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
}

/** Section `authorization`: OffsetCommit with tokens and 1,000 ACL bindings, beside a node without authentication. */
export const authorizationSection: BenchSection = {
  name: 'authorization',
  summary: 'OffsetCommit from 100 sockets with tokens and 1,000 ACL bindings; vs a node without authentication',
  needsBuild: true,
  run: () => authorization(),
};

async function authorization(): Promise<void> {
  const sockets = scaled(100, 2);
  const rounds = 2;
  const seconds = 4;
  console.log(
    `Cost of authorization: OffsetCommit from ${sockets} sockets, no authentication vs tokens + 1,000 ACL bindings (target >= 0.9x), ${rounds} alternating rounds of ${seconds} s`,
  );
  const result = await attempt('authorization', () => authorizationCost(sockets, 1000, seconds * 1000, rounds));
  if (!result) return;
  const mean = (runs: LoadResult[]) => runs.reduce((sum, r) => sum + r.throughput, 0) / runs.length;
  // Server CPU per commit is steadier than throughput on a shared machine: it does not move with the clients' share of the cores.
  const cpuPerCommit = (runs: LoadResult[]) =>
    runs.reduce((sum, r) => sum + (r.serverCores ?? Number.NaN) * r.seconds * 1000, 0) /
    runs.reduce((sum, r) => sum + r.requests, 0);
  const row = (system: string, runs: LoadResult[]): string[] => [
    system,
    runs.map((r) => perSecond(r.throughput)).join(', '),
    perSecond(mean(runs)),
    ms(median(runs.map((r) => r.p99))),
    ratio(mean(runs), mean(result.open)),
    `${cpuPerCommit(runs).toFixed(2)} ms (${ratio(cpuPerCommit(runs), cpuPerCommit(result.open))})`,
  ];
  table(
    ['node', 'commits per round', 'mean', 'p99 (median)', 'throughput vs no authentication', 'server CPU per commit'],
    [
      row('no authentication (npm start)', result.open),
      row(`static tokens, ${result.bindings} ACL bindings`, result.secured),
    ],
  );
  const alone = authorizerCost(sockets, 1000, 200_000);
  const perCommit = 2 * alone.cachedNs; // READ GROUP and READ TOPIC
  console.log(
    `   the authorizer alone: ${alone.cachedNs.toFixed(0)} ns per cached check, ${alone.uncachedNs.toFixed(0)} ns per check decided from the index;` +
      ` an OffsetCommit makes 2 (${(perCommit / 1000).toFixed(2)} µs)`,
  );
}
