import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { partitionFor } from '@cohort/protocol';
import { appPerFile } from '../support/app-per-file';
import { ensurePackagesBuilt, PACKAGES, REPO_ROOT } from '../support/built-packages';
import { eventually } from '../support/group-member';

// Builds the packages (when stale), packs and installs them: minutes on a loaded machine, not seconds.
jest.setTimeout(300_000);

const run = promisify(execFile);

/** The README's consumer, as a new user pastes it: joins, takes its partitions, commits, leaves. */
const consumer = (load: string): string => `${load}
const [url, groupId] = process.argv.slice(2);
const client = new CohortClient({ urls: [url], clientId: 'pack-test' });
const member = client.member({ groupId, topics: ['orders'], autoCommit: false });
const events = [];
member.on('assigned', (e) => events.push(['assigned', e.partitions]));
member.on('crash', (e) => { console.error('crash', e); process.exit(3); });
(async () => {
  await member.start();
  for (const { topic, partitions } of member.assignment) {
    for (const partition of partitions) member.markProcessed({ topic, partition, offset: 10 + partition });
  }
  await member.commit();
  const committed = await member.committed();
  const state = member.state;
  await member.stop();
  await client.close();
  let kafkaError = null;
  try { await new CohortClient({ urls: [url] }).admin().describeGroup('no-such-group'); } catch (e) { kafkaError = { isCohortError: e instanceof CohortError, name: e.name, code: e.code }; }
  console.log(JSON.stringify({ state, events, committed, kafkaError, placement: partitionFor(groupId, 50) }));
})().catch((e) => { console.error(e); process.exit(2); });
`;

/** The first JavaScript block of README.md's SDK quick start, exactly as a user copies it. */
function readmeConsumer(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start: a consumer with the SDK'));
  const block = /```js\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README.md has no JavaScript block in its SDK quick start');
  return block[1];
}

/** Type-checks against the installed declarations as a browser app would (no @types/node). */
const TYPED_CONSUMER = `import { CohortClient, CohortError, type TopicPartitions, type PartitionAssignor } from '@cohort/client';
import { createRangeAssignor } from '@cohort/assignors';
import { ErrorCode, type GroupDescription } from '@cohort/protocol';

const assignor: PartitionAssignor = createRangeAssignor();
const client = new CohortClient({ urls: ['http://localhost:3000'], token: async () => 'jwt' });
const member = client.member({ groupId: 'g', topics: ['orders'], assignors: [assignor, 'roundrobin'] });
member.on('assigned', async (e: { partitions: TopicPartitions[]; generationId: number }) => { console.log(e.partitions, e.generationId); });
member.on('error', (e: CohortError) => { const retriable: boolean = e.retriable; console.log(e.code, e.name, retriable); });
export async function main(): Promise<GroupDescription> {
  await member.start();
  member.markProcessed({ topic: 'orders', partition: 0, offset: 1 });
  await member.commit();
  const error = new CohortError(ErrorCode.NOT_COORDINATOR);
  console.log(error.retriable, member.assignment, member.generationId, member.memberId, member.state);
  return client.admin().describeGroup('g');
}
`;

/**
 * The three packages as a user gets them: \`npm pack\`ed, installed into an empty project outside the
 * repository from the tarballs alone, then a plain Node script there (ESM import and CommonJS require)
 * joins a group on a real node, gets its partitions and commits; the types compile for a TS user.
 */
describe('packed @cohort packages (e2e)', () => {
  const app = appPerFile({ topics: { orders: 3 } });
  const project = mkdtempSync(join(tmpdir(), 'cohort-pack-'));

  beforeAll(async () => {
    await ensurePackagesBuilt();
    const tarballs = join(project, 'tarballs');
    const appDir = join(project, 'app');
    mkdirSync(tarballs);
    mkdirSync(appDir);
    for (const name of PACKAGES)
      await run('npm', ['pack', '--silent', '--pack-destination', tarballs], { cwd: join(REPO_ROOT, 'libs', name) });
    writeFileSync(
      join(appDir, 'package.json'),
      JSON.stringify({ name: 'cohort-pack-check', version: '1.0.0', private: true }),
    );
    const packed = readdirSync(tarballs).map((file) => join(tarballs, file));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', ...packed], {
      cwd: appDir,
    });
    writeFileSync(join(appDir, 'readme-consumer.mjs'), readmeConsumer());
    writeFileSync(
      join(appDir, 'consumer.mjs'),
      consumer(
        "import { CohortClient, CohortError } from '@cohort/client';\nimport { partitionFor } from '@cohort/protocol';",
      ),
    );
    writeFileSync(
      join(appDir, 'consumer.cjs'),
      consumer(
        "const { CohortClient, CohortError } = require('@cohort/client');\nconst { partitionFor } = require('@cohort/protocol');",
      ),
    );
    // The same consumer as CommonJS (.ts) and as an ES module (.mts): each resolves its own declarations.
    writeFileSync(join(appDir, 'typed-consumer.ts'), TYPED_CONSUMER);
    writeFileSync(join(appDir, 'typed-consumer.mts'), TYPED_CONSUMER);
    const compilerOptions = {
      noEmit: true,
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2022', 'dom'],
      types: [],
      skipLibCheck: false,
    };
    writeFileSync(
      join(appDir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['typed-consumer.ts', 'typed-consumer.mts'] }),
    );
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it.each([
    ['an ES module (import)', 'consumer.mjs', 'pack-esm'],
    ['a CommonJS script (require)', 'consumer.cjs', 'pack-cjs'],
  ])('%s joins a group, gets every partition and commits', async (_, script, groupId) => {
    const { stdout } = await run(process.execPath, [script, app.url, groupId], {
      cwd: join(project, 'app'),
      timeout: 60_000,
    });
    const result = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(result.state).toBe('stable');
    expect(result.events).toEqual([['assigned', [{ topic: 'orders', partitions: [0, 1, 2] }]]]);
    expect(result.committed).toEqual(
      expect.arrayContaining(
        [0, 1, 2].map((partition) => expect.objectContaining({ topic: 'orders', partition, offset: 10 + partition })),
      ),
    );
    expect(result.kafkaError).toEqual({ isCohortError: true, name: 'GROUP_ID_NOT_FOUND', code: 69 });
    expect(result.placement).toBe(partitionFor(groupId, 50));
    // What the node stored, read over REST independently of the SDK.
    const offsets = await app.http().get(`/v1/groups/${groupId}/offsets`).expect(200);
    expect(
      offsets.body.offsets.map((o: { partition: number; committedOffset: number }) => [o.partition, o.committedOffset]),
    ).toEqual([
      [0, 10],
      [1, 11],
      [2, 12],
    ]);
    await app
      .http()
      .get(`/v1/groups/${groupId}`)
      .expect(200)
      .expect((r) => expect(r.body.state).toBe('Empty'));
  });

  it("runs README.md's quick-start consumer as pasted: it joins, commits as it goes, and leaves on Ctrl-C", async () => {
    const child = spawn(process.execPath, ['readme-consumer.mjs'], {
      cwd: join(project, 'app'),
      env: { ...process.env, COHORT_URL: app.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await eventually(
        () => output.includes('assigned'),
        `the consumer's first assignment (output: ${output})`,
        60_000,
      );
      // Auto-commit every 5 s: wait for a commit of every partition, read over REST.
      const committed = async () =>
        ((await app.http().get('/v1/groups/my-group/offsets')).body.offsets ?? []) as {
          partition: number;
          committedOffset: number;
        }[];
      await eventually(
        async () => (await committed()).filter((o) => o.committedOffset > 0).length === 3,
        'auto-commits of all three partitions',
        60_000,
      );
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      await app
        .http()
        .get('/v1/groups/my-group')
        .expect(200)
        .expect((r) => expect(r.body).toMatchObject({ state: 'Empty', members: [] }));
      expect(output).not.toMatch(/stopped:|retrying after/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('resolves the Node-only and browser entry points', async () => {
    const probe = `
      const plugins = require('@cohort/assignors/plugins');
      const conformance = require('@cohort/assignors/conformance');
      const { buildAsyncApiDocument } = require('@cohort/protocol/asyncapi');
      const browser = require.resolve('@cohort/client/browser/global');
      console.log(JSON.stringify({ loader: typeof plugins.loadAssignorPlugins, check: typeof conformance.runConformance, asyncapi: buildAsyncApiDocument().asyncapi, browser: browser.endsWith('cohort-client.global.js') }));`;
    const { stdout } = await run(process.execPath, ['-e', probe], { cwd: join(project, 'app') });
    expect(JSON.parse(stdout)).toEqual({ loader: 'function', check: 'function', asyncapi: '3.0.0', browser: true });
  });

  it("type-checks a TypeScript consumer against the packages' declarations, without Node's types", async () => {
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', '.'], { cwd: join(project, 'app') }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
    );
    expect(result.stdout).toBe('');
  });
});
