import type { Socket } from 'socket.io-client';
import { tryConnect, writeTokensFile } from '../support/auth-fixtures';
import { eventually } from '../support/group-member';
import { startNode } from '../support/spawned-node';
import { tempDataDir } from '../support/test-app';

// A node as its own process (its real log output), started through tsx: slower than Jest's 5 s default.
jest.setTimeout(90_000);

/**
 * The audit log under a flood of refused requests (docs/security.md, "Audit log"), read from what the
 * node writes on stdout: one DescribeGroups naming N refused groups wrote N lines (10 requests of 1 MB
 * wrote 40,000 lines in 2.8 s), and nothing bounded how fast one principal could make the node write.
 */
const LIMIT = 20;
const WINDOW_MS = 3000;
const data = tempDataDir('cohort-audit-flood-');
const tokens = tempDataDir('cohort-audit-tokens-');
const node = startNode(data.dir, {
  AUTH_TOKENS_FILE: writeTokensFile(tokens.dir, { 'User:lister': 'lister-token', 'User:flooder': 'flooder-token' }),
  AUDIT_LOG_LIMIT_LINES: String(LIMIT),
  AUDIT_LOG_LIMIT_WINDOW_MS: String(WINDOW_MS),
});
const sockets: Socket[] = [];

afterAll(async () => {
  for (const socket of sockets) socket.close();
  await node.stop();
  data.remove();
  tokens.remove();
});

interface AuditLine {
  msg: string;
  audit?: {
    principal: string;
    outcome: string;
    resourceName?: string;
    resourceNames?: string[];
    refused?: number;
    suppressed?: number;
  };
}
const auditOf = (principal: string) =>
  (node.lines() as unknown as AuditLine[]).filter((l) => l.msg === 'audit' && l.audit?.principal === principal);

async function connectAs(token: string): Promise<Socket> {
  const url = (await node.summary).summary!.url as string;
  const outcome = await tryConnect(url, { token });
  if (!outcome.connected) throw new Error(outcome.message);
  sockets.push(outcome.socket);
  return outcome.socket;
}

describe('the audit log under a flood of refused requests', () => {
  it('writes one line for a DescribeGroups naming 1,000 refused groups, naming the first 100 and the count', async () => {
    const socket = await connectAs('lister-token');
    const groups = Array.from({ length: 1000 }, (_, i) => `secret-${i}`);
    const answer = (await socket.timeout(10_000).emitWithAck('DescribeGroups', { groups })) as {
      groups: { errorCode: number }[];
    };
    expect(answer.groups).toHaveLength(1000);
    expect(answer.groups.every((g) => g.errorCode === 30)).toBe(true);
    await eventually(() => auditOf('User:lister').length > 0, 'the audit line');
    // Let anything else the request might have written reach stdout.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = auditOf('User:lister');
    expect(lines).toHaveLength(1);
    expect(lines[0].audit).toMatchObject({
      outcome: 'DENIED',
      operation: 'DESCRIBE',
      resourceType: 'GROUP',
      resourceName: 'secret-0',
      refused: 1000,
      request: 'DescribeGroups',
    });
    expect(lines[0].audit!.resourceNames).toEqual(groups.slice(0, 100));
  });

  it('writes at most AUDIT_LOG_LIMIT_LINES denials of one principal per window, then one line with the count it suppressed', async () => {
    const socket = await connectAs('flooder-token');
    const FLOOD = 200;
    const answers = (await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        socket.timeout(10_000).emitWithAck('DescribeGroups', { groups: [`flood-${i}`] }),
      ),
    )) as { groups: { errorCode: number }[] }[];
    expect(answers.every((a) => a.groups[0].errorCode === 30)).toBe(true);
    // Every refusal is accounted for: written, or counted in a suppression line when its window ended.
    const accounted = () =>
      auditOf('User:flooder').reduce(
        (sum, l) => sum + (l.audit!.outcome === 'DENIED' ? 1 : (l.audit!.suppressed ?? 0)),
        0,
      );
    await eventually(() => accounted() === FLOOD, 'every refusal written or counted', 4 * WINDOW_MS + 10_000);
    const lines = auditOf('User:flooder');
    const suppressions = lines.filter((l) => l.audit!.outcome === 'SUPPRESSED');
    const denials = lines.filter((l) => l.audit!.outcome === 'DENIED');
    expect(suppressions.length).toBeGreaterThanOrEqual(1);
    expect(denials.length).toBeLessThanOrEqual(LIMIT * suppressions.length);
    expect(suppressions[0].audit).toMatchObject({ principal: 'User:flooder', suppressed: expect.any(Number) });
    // The other principal's line is untouched by this one's flood.
    expect(auditOf('User:lister')).toHaveLength(1);
  });
});
