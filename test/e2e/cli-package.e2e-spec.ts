import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { appPerFile } from '../support/app-per-file';
import { ensurePackagesBuilt, REPO_ROOT } from '../support/built-packages';
import { eventually, settledTogether } from '../support/group-member';
import { ConsumerProtocolMember, reconcileAll } from '../support/consumer-protocol-member';
import { connect } from '../support/socket-client';

// Packs (building the CLI when its sources changed) and installs globally: a minute on a loaded machine.
jest.setTimeout(300_000);

const run = promisify(execFile);

/** The rows of a table as arrays of cells (split on runs of two or more spaces). */
function rows(table: string): string[][] {
  return table
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/\s{2,}/));
}

/**
 * `npm pack ./libs/cli`, then `npm install -g --prefix <empty folder>` of the tarball alone, as a user
 * installs the command on a machine without the repository: the installed `bin/cohort` runs the built
 * JavaScript (no TypeScript sources, no tsx) against a real node.
 */
describe('the cohort command installed globally from its tarball (e2e)', () => {
  const app = appPerFile({ topics: { orders: 2 } });
  const pool = app.members({ topics: ['orders'], clientId: 'global-cli' });
  const root = mkdtempSync(join(tmpdir(), 'cohort-cli-global-'));
  const prefix = join(root, 'prefix');
  const cohort = (...args: string[]) =>
    run(join(prefix, 'bin', 'cohort'), ['--url', app.url, ...args], { cwd: root, env: { PATH: process.env.PATH } });

  beforeAll(async () => {
    await ensurePackagesBuilt();
    const tarballs = join(root, 'tarballs');
    mkdirSync(tarballs);
    await run('npm', ['pack', '--silent', '--pack-destination', tarballs, './libs/cli'], { cwd: REPO_ROOT });
    const [tarball] = readdirSync(tarballs);
    await run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(tarballs, tarball)],
      { cwd: root },
    );
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('installs the built command alone: no sources, no dependencies to fetch', () => {
    const installed = join(prefix, 'lib', 'node_modules', '@cohort', 'cli');
    expect(readdirSync(installed).sort()).toEqual(['README.md', 'bin', 'dist', 'package.json']);
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
  });

  it('lists and describes a live group against a real node', async () => {
    const member = await pool.member('installed');
    member.start();
    await eventually(() => settledTogether([member]), 'the member settled', 30_000);
    expect((await member.commit([{ topic: 'orders', partition: 1, offset: 8 }])).errorCode).toBe(0);

    const listed = await cohort('groups', 'list');
    expect(rows(listed.stdout)).toEqual(
      expect.arrayContaining([
        ['GROUP', 'TYPE', 'PROTOCOL-TYPE', 'STATE', 'MEMBERS', 'COORDINATOR'],
        ['installed', 'classic', 'consumer', 'Stable', '1', '0'],
      ]),
    );
    const described = rows((await cohort('groups', 'describe', 'installed')).stdout);
    expect(described[0].slice(0, 9)).toEqual([
      'GROUP',
      'TOPIC',
      'PARTITION',
      'CURRENT-OFFSET',
      'LOG-END-OFFSET',
      'LAG',
      'CONSUMER-ID',
      'HOST',
      'CLIENT-ID',
    ]);
    expect(described.slice(1).map((r) => [r[0], r[1], r[2], r[3], r[8]])).toEqual([
      ['installed', 'orders', '0', '-', 'global-cli'],
      ['installed', 'orders', '1', '8', 'global-cli'],
    ]);
  });

  it('shows a consumer group (KIP-848): its type, epochs, each member against its target and what it must give up, and its epoch history', async () => {
    const sockets = [await connect(app.url), await connect(app.url)];
    try {
      const a = new ConsumerProtocolMember(sockets[0], 'kip848', 'member-a');
      const b = new ConsumerProtocolMember(sockets[1], 'kip848', 'member-b');
      await a.join(['orders']);
      await b.join(['orders']);
      await a.heartbeat(); // member-a learns it must give one partition up; member-b waits for it

      const listed = rows((await cohort('groups', 'list')).stdout);
      expect(listed).toContainEqual(['kip848', 'consumer', 'consumer', 'Reconciling', '2', '0']);
      const members = rows((await cohort('groups', 'describe', 'kip848', '--members')).stdout);
      expect(members[0]).toEqual([
        'GROUP',
        'CONSUMER-ID',
        'GROUP-INSTANCE-ID',
        'HOST',
        'CLIENT-ID',
        '#PARTITIONS',
        'CURRENT-EPOCH',
        'MEMBER-STATE',
        'CURRENT-ASSIGNMENT',
        'TARGET-EPOCH',
        'TARGET-ASSIGNMENT',
        'PENDING-REVOCATION',
      ]);
      const [rowA, rowB] = members.slice(1);
      expect([rowA[1], rowA[5], rowA[6], rowA[7], rowA[9]]).toEqual([
        'member-a',
        '1',
        '1',
        'UNREVOKED_PARTITIONS',
        '2',
      ]);
      expect(rowA[8]).toBe(rowA[10]); // it already holds only its target ...
      expect(rowA[11]).toMatch(/^orders:[01]$/); // ... and still has the other partition to give up
      expect([rowB[1], rowB[5], rowB[6], rowB[7], rowB[8], rowB[9]]).toEqual([
        'member-b',
        '0',
        '2',
        'UNRELEASED_PARTITIONS',
        '-',
        '2',
      ]);
      expect(rowB[10]).toBe(rowA[11]);

      await reconcileAll([a, b]);
      const state = rows((await cohort('groups', 'describe', 'kip848', '--state')).stdout);
      expect(state).toEqual([
        [
          'GROUP',
          'COORDINATOR (ID)',
          'ASSIGNMENT-STRATEGY',
          'STATE',
          '#MEMBERS',
          'GROUP-EPOCH',
          'TARGET-ASSIGNMENT-EPOCH',
        ],
        ['kip848', `${app.url} (0)`, 'uniform', 'Stable', '2', '2', '2'],
      ]);
      const settled = rows((await cohort('groups', 'describe', 'kip848', '--members')).stdout).slice(1);
      for (const row of settled) {
        expect(row.slice(6, 8)).toEqual(['2', 'STABLE']);
        expect(row[8]).toBe(row[10]);
        expect(row[11]).toBe('-');
      }
      const history = rows((await cohort('groups', 'rebalances', 'kip848')).stdout);
      expect(history[0]).toEqual([
        'GROUP-EPOCH',
        'STARTED',
        'CONVERGED-IN-MS',
        'OUTCOME',
        'MEMBERS',
        'REASON',
        'MEMBER-ID',
      ]);
      expect(history.slice(1).map((r) => [r[0], r[3], r[4], r[5], r[6]])).toEqual([
        ['2', 'converged', '2', 'member-joined', 'member-b'],
        ['1', 'converged', '1', 'member-joined', 'member-a'],
      ]);
      const json = JSON.parse((await cohort('--output', 'json', 'groups', 'describe', 'kip848', '--state')).stdout);
      expect(json).toMatchObject({ type: 'consumer', groupEpoch: 2, assignmentEpoch: 2, assignor: 'uniform' });
    } finally {
      for (const socket of sockets) socket.disconnect();
    }
  });

  it('answers a server error with exit status 1 and bad usage with 2', async () => {
    const missing = await cohort('groups', 'describe', 'nobody').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/^Error: GROUP_ID_NOT_FOUND: /) });
    const bad = await cohort('groups', '--bogus').catch((error: { code: number; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: cohort groups') });
  });
});
