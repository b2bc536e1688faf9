import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { command, main } from './cli';

function check(args: string[], cwd: string): { code: number; output: string } {
  const lines: string[] = [];
  const code = main(args, cwd, (line) => lines.push(line));
  return { code, output: lines.join('\n') };
}

// A plugin body: gives every partition of every subscribed topic to the first subscriber in id order.
const firstSubscriber = `
  const members = [...ms].sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
  const result = Object.fromEntries(members.map((m) => [m.memberId, { partitions: [] }]));
  const topics = [...new Set(members.flatMap((m) => m.subscription.topics))].sort();
  for (const t of topics) {
    const n = cluster.partitionsPerTopic[t] || 0;
    if (n === 0) continue;
    const owner = members.find((m) => m.subscription.topics.includes(t));
    result[owner.memberId].partitions.push({ topic: t, partitions: Array.from({ length: n }, (_, p) => p) });
  }`;

// Each check runs an assignor through many scenarios (seconds of CPU on a shared machine): an
// explicit bound for every test, not Jest's 5 s default.
jest.setTimeout(60_000);

describe('assignor conformance kit (npm run assignor:check)', () => {
  const repoRoot = path.resolve(__dirname, '../../../..');
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cohort-check-'));
    const plugin = (file: string, name: string, body: string, extra = ''): void =>
      writeFileSync(
        path.join(dir, file),
        `module.exports = { name: '${name}'${extra}, assign(cluster, ms) { ${body} } };`,
      );
    plugin('valid.js', 'first', `${firstSubscriber} return result;`);
    plugin(
      'twice.js',
      'twice',
      `${firstSubscriber} const ids = Object.keys(result); if (ids.length > 1) result[ids[1]].partitions = result[ids[0]].partitions; return result;`,
    );
    // Swaps two members' assignments on every other call: the same input, a different answer.
    plugin(
      'flaky.js',
      'flaky',
      `${firstSubscriber} const ids = Object.keys(result); if (++globalThis.__flakyCalls % 2 === 0 && ids.length > 1) [result[ids[0]], result[ids[1]]] = [result[ids[1]], result[ids[0]]]; return result;`,
    );
    (globalThis as { __flakyCalls?: number }).__flakyCalls = 0;
    plugin('throws.js', 'thrower', "throw new Error('not today');");
    plugin('hasty.js', 'hasty', `${firstSubscriber} return result;`, ", supportedProtocols: ['cooperative']");
    // Answers twice, then never returns.
    writeFileSync(
      path.join(dir, 'hang.js'),
      `let calls = 0; module.exports = { name: 'stuck', assign(cluster, ms) { if (++calls === 3) for (;;) {} ${firstSubscriber} return result; } };`,
    );
    writeFileSync(
      path.join(dir, 'two.js'),
      `exports.assignors = [require('./valid.js'), { ...require('./valid.js'), name: 'second' }];`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes the example plugin and prints every dimension of the report', () => {
    const { code, output } = check(['examples/assignor-plugin/least-loaded-assignor.ts'], repoRoot);
    expect(code).toBe(0);
    expect(output).toContain("Conformance report for assignor 'least-loaded'");
    for (const dimension of ['validity', 'determinism', 'balance', 'stickiness', 'static', 'cooperative', 'time'])
      expect(output).toMatch(new RegExp(`^\\S*\\s+${dimension}`, 'm'));
    expect(output).toMatch(/RESULT: PASS$/);
  });

  it('runs cooperative follow-up rounds for an assignor that declares cooperative', () => {
    const { code, output } = check(['builtin:cooperative-sticky'], repoRoot);
    expect(code).toBe(0);
    expect(output).toMatch(/cooperative\s+\d+ rebalances needed [1-9]\d* follow-ups/);
  });

  it('checks every assignor a module exports', () => {
    const { code, output } = check(['./two.js'], dir);
    expect(code).toBe(0);
    expect(output).toContain("assignor 'first'");
    expect(output).toContain("assignor 'second'");
  });

  it.each([
    ['assigns a partition twice', './twice.js', 'is assigned twice'],
    ['is not deterministic', './flaky.js', 'the same input gave a different assignment the second time'],
    ['throws', './throws.js', 'assign threw: not today'],
    [
      'declares cooperative but moves partitions in one round',
      './hasty.js',
      'in the same round as it is revoked, which the cooperative protocol forbids',
    ],
  ])('fails with exit code 1 for a plugin that %s', (_label, module, message) => {
    const { code, output } = check([module, '--seed', '7'], dir);
    expect(code).toBe(1);
    expect(output).toContain(message);
    expect(output).toMatch(/RESULT: FAIL \(\d+ violation\(s\)\)$/);
  });

  it('prints JSON on request', () => {
    const { code, output } = check(['./valid.js', '--json'], dir);
    expect(code).toBe(0);
    const [report] = JSON.parse(output) as {
      assignor: string;
      violationCount: number;
      determinism: { total: number };
    }[];
    expect(report.assignor).toBe('first');
    expect(report.violationCount).toBe(0);
    expect(report.determinism.total).toBeGreaterThan(10);
  });

  it('exits 2 with the usage when the module is missing or cannot be loaded', () => {
    expect(check([], dir).code).toBe(2);
    const { code, output } = check(['./nope.js'], dir);
    expect(code).toBe(2);
    expect(output).toContain("cannot load './nope.js'");
  });

  describe('as a command, in a child process with a per-call watchdog', () => {
    const run = async (args: string[]): Promise<{ code: number; output: string }> => {
      const lines: string[] = [];
      const code = await command(args, dir, (line) => lines.push(line));
      return { code, output: lines.join('\n') };
    };

    it('stops a plugin whose assign never returns and names the call', async () => {
      const { code, output } = await run(['./hang.js', '--call-timeout', '1']);
      expect(code).toBe(1);
      expect(output).toMatch(/did not return within 1 s: assignor 'stuck', \S+/);
      expect(output).toMatch(/RESULT: FAIL \(hung\)$/);
    }, 30_000);

    it('passes the report and exit code of a plugin that behaves through unchanged', async () => {
      const { code, output } = await run(['./valid.js']);
      expect(code).toBe(0);
      expect(output).toContain("Conformance report for assignor 'first'");
      expect(output).toMatch(/RESULT: PASS$/);
      expect(output).not.toContain('@@cohort');
    }, 30_000);
  });
});
