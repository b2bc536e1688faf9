import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { buildProgram, runCli } from '@cohort/cli/cli-program';
import { appPerFile } from '../support/app-per-file';
import { eventually, settledTogether } from '../support/group-member';
import type * as P from '@cohort/protocol';
import { connect, request as emit } from '../support/socket-client';

jest.setTimeout(60_000);

interface Ran {
  code: number;
  out: string;
  err: string;
}

/** `cohort <args>` in this process against `url`, with its output captured. */
async function cohort(url: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  let out = '';
  let err = '';
  const code = await runCli(['--url', url, ...args], {
    io: { out: (t) => void (out += t), err: (t) => void (err += t) },
    env,
  });
  return { code, out, err };
}

/** The rows of a table as arrays of cells (split on runs of two or more spaces). */
function rows(table: string): string[][] {
  return table
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/\s{2,}/));
}

/** Every command path of the program: ['groups', 'list'], ... */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => [[...prefix, sub.name()], ...commandPaths(sub, [...prefix, sub.name()])]);
}

describe('the cohort command (e2e)', () => {
  const app = appPerFile({ topics: { orders: 3 } });
  const pool = app.members({ topics: ['orders'], clientId: 'billing-app' });
  const dir = mkdtempSync(join(tmpdir(), 'cohort-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('manages topics, with tables and JSON', async () => {
    expect(await cohort(app.url, ['topics', 'create', 'audit', '--partitions', '2'])).toMatchObject({
      code: 0,
      out: 'Created topic audit with 2 partitions.\n',
    });
    expect((await cohort(app.url, ['topics', 'alter', 'audit', '--partitions', '3'])).code).toBe(0);
    const listed = await cohort(app.url, ['topics', 'list']);
    expect(rows(listed.out)).toEqual([
      ['TOPIC', 'PARTITIONS'],
      ['audit', '3'],
      ['orders', '3'],
    ]);
    await app
      .http()
      .put('/v1/topics/audit/end-offsets')
      .send({ partitions: [{ partition: 1, endOffset: 40, startOffset: 4 }] })
      .expect(200);
    const described = rows((await cohort(app.url, ['topics', 'describe', 'audit'])).out);
    expect(described[0]).toEqual(['TOPIC', 'PARTITION', 'START-OFFSET', 'END-OFFSET', 'REPORTED-AT']);
    expect(described[2].slice(0, 4)).toEqual(['audit', '1', '4', '40']);
    const json = await cohort(app.url, ['--output', 'json', 'topics', 'describe', 'audit']);
    expect(JSON.parse(json.out)).toMatchObject({
      name: 'audit',
      partitions: 3,
      endOffsets: { 1: 40 },
      startOffsets: { 1: 4 },
    });
  });

  it("describes a live group with kafka-consumer-groups.sh's columns", async () => {
    const member = await pool.member('billing');
    member.start();
    await eventually(() => settledTogether([member]), 'the member settled', 30_000);
    expect((await member.commit([{ topic: 'orders', partition: 0, offset: 5 }])).errorCode).toBe(0);
    await app
      .http()
      .put('/v1/topics/orders/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 12 }] })
      .expect(200);

    const offsets = rows((await cohort(app.url, ['groups', 'describe', 'billing'])).out);
    expect(offsets[0]).toEqual([
      'GROUP',
      'TOPIC',
      'PARTITION',
      'CURRENT-OFFSET',
      'LOG-END-OFFSET',
      'LAG',
      'CONSUMER-ID',
      'HOST',
      'CLIENT-ID',
      'TIME-LAG',
    ]);
    expect(offsets.slice(1).map((r) => r.slice(0, 6))).toEqual([
      ['billing', 'orders', '0', '5', '12', '7'],
      ['billing', 'orders', '1', '-', '-', '-'],
      ['billing', 'orders', '2', '-', '-', '-'],
    ]);
    expect(offsets[1][6]).toBe(member.memberId);
    expect(offsets[1][8]).toBe('billing-app');
    expect(offsets[1][9]).toMatch(/^\d+(\.\d)?s$/); // reported just now: seconds
    expect(offsets[2][9]).toBe('-');
    // The same with --offsets (but the time lag, which grows between the two runs).
    const withoutTimeLag = (table: string[][]) => table.map((row) => row.slice(0, 9));
    expect(withoutTimeLag(rows((await cohort(app.url, ['groups', 'describe', 'billing', '--offsets'])).out))).toEqual(
      withoutTimeLag(offsets),
    );

    const members = rows((await cohort(app.url, ['groups', 'describe', 'billing', '--members'])).out);
    expect(members[0]).toEqual(['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS']);
    expect(members[1]).toEqual(['billing', member.memberId, '-', expect.any(String), 'billing-app', '3']);
    const state = rows((await cohort(app.url, ['groups', 'describe', 'billing', '--state'])).out);
    expect(state).toEqual([
      ['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS'],
      ['billing', `${app.url} (0)`, 'range', 'Stable', '1'],
    ]);

    const listed = rows((await cohort(app.url, ['groups', 'list', '--state', 'Stable'])).out);
    expect(listed).toContainEqual(['billing', 'classic', 'consumer', 'Stable', '1', '0']);
    const lag = rows((await cohort(app.url, ['groups', 'lag', 'billing'])).out);
    expect(lag[0]).toEqual([
      'GROUP',
      'TOPIC',
      'PARTITION',
      'CURRENT-OFFSET',
      'LOG-END-OFFSET',
      'LAG',
      'TIME-LAG',
      'STATUS',
    ]);
    expect(lag[1].slice(0, 6)).toEqual(['billing', 'orders', '0', '5', '12', '7']);
    expect(lag[1][6]).toMatch(/^\d+(\.\d)?s$/);
    const rebalances = rows((await cohort(app.url, ['groups', 'rebalances', 'billing'])).out);
    expect(rebalances[0]).toEqual(['GENERATION', 'STARTED', 'DURATION-MS', 'MEMBERS', 'PROTOCOL', 'REASON']);
    expect(rebalances[1].slice(0, 1)).toEqual(['1']);

    // A reset is refused while the member is there: the server's error, exit status 1.
    const refused = await cohort(app.url, [
      'offsets',
      'reset',
      'billing',
      '--all-topics',
      '--to-earliest',
      '--execute',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^Error: NON_EMPTY_GROUP: /);
    expect((await cohort(app.url, ['groups', 'delete', 'billing'])).err).toMatch(/NON_EMPTY_GROUP/);
    await member.stop();
  });

  it('previews a reset, executes it, deletes offsets and the group', async () => {
    await app
      .http()
      .post('/v1/groups/ledger/offsets')
      .send({
        topics: [
          {
            name: 'orders',
            partitions: [
              { partitionIndex: 0, committedOffset: 9 },
              { partitionIndex: 1, committedOffset: 3 },
            ],
          },
        ],
      })
      .expect(200);
    const preview = await cohort(app.url, ['offsets', 'reset', 'ledger', '--topic', 'orders:0', '--shift-by', '-4']);
    expect(preview.code).toBe(0);
    expect(rows(preview.out)).toEqual([
      ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'NEW-OFFSET'],
      ['ledger', 'orders', '0', '9', '5'],
    ]);
    expect(preview.err).toContain('Dry run');
    const executed = await cohort(app.url, [
      '--output',
      'json',
      'offsets',
      'reset',
      'ledger',
      '--topic',
      'orders:0',
      '--shift-by',
      '-4',
      '--execute',
    ]);
    expect(JSON.parse(executed.out)).toEqual({
      groupId: 'ledger',
      dryRun: false,
      offsets: [{ topic: 'orders', partition: 0, currentOffset: 9, newOffset: 5 }],
    });
    const described = rows((await cohort(app.url, ['groups', 'describe', 'ledger'])).out);
    expect(described.slice(1).map((r) => r.slice(1, 4))).toEqual([
      ['orders', '0', '5'],
      ['orders', '1', '3'],
    ]);

    expect(rows((await cohort(app.url, ['offsets', 'delete', 'ledger', '--topic', 'orders:1'])).out)).toEqual([
      ['TOPIC', 'PARTITION', 'STATUS'],
      ['orders', '1', 'Successful'],
    ]);
    expect((await cohort(app.url, ['groups', 'delete', 'ledger'])).out).toBe(
      "Deletion of group 'ledger' was successful.\n",
    );
    const gone = await cohort(app.url, ['groups', 'describe', 'ledger']);
    expect(gone).toMatchObject({ code: 1, out: '' });
    expect(gone.err).toMatch(/^Error: GROUP_ID_NOT_FOUND: /);
  });

  it('shows the cluster and the assignors, and dry-runs an assignment from a file', async () => {
    const cluster = rows((await cohort(app.url, ['cluster', 'describe'])).out);
    expect(cluster).toEqual([
      ['CLUSTER-ID', 'NODE-ID', 'URL', 'ALIVE', 'CONTROLLER'],
      ['cohort', '0', app.url, 'true', 'yes'],
    ]);
    const partitions = rows((await cohort(app.url, ['cluster', 'partitions'])).out);
    expect(partitions).toHaveLength(51);
    expect(partitions[1]).toEqual([
      '0',
      '0',
      expect.any(String),
      '0',
      '0',
      expect.any(String),
      expect.any(String),
      'no',
    ]);
    expect(rows((await cohort(app.url, ['assignors', 'list'])).out)).toContainEqual([
      'cooperative-sticky',
      'yes',
      'cooperative,eager',
    ]);
    const input = join(dir, 'group.json');
    writeFileSync(
      input,
      JSON.stringify({ partitionsPerTopic: { orders: 2 }, members: [{ memberId: 'a', topics: ['orders', 'gone'] }] }),
    );
    const assigned = await cohort(app.url, ['assignors', 'assign', 'range', '--input', input]);
    expect(rows(assigned.out)).toEqual([
      ['MEMBER', 'TOPIC', 'PARTITIONS'],
      ['a', 'orders', '0,1'],
    ]);
    expect(assigned.err).toContain('gone');
  });

  it('sends ACL requests as the REST API names them, with the token', async () => {
    const seen: { method: string; url: string; authorization?: string; body: string }[] = [];
    const server: Server = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push({ method: request.method!, url: request.url!, authorization: request.headers.authorization, body });
        response.setHeader('content-type', 'application/json');
        response.end(
          request.method === 'DELETE' ? JSON.stringify({ deleted: [] }) : request.method === 'GET' ? '[]' : '{}',
        );
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await cohort(url, ['acls', 'list', '--principal', 'User:ops'], { COHORT_TOKEN: 'from-env' })).code).toBe(
        0,
      );
      const add = [
        'acls',
        'add',
        '--principal',
        'User:ops',
        '--resource-type',
        'GROUP',
        '--resource-name',
        'billing',
        '--operation',
        'read',
      ];
      expect((await cohort(url, ['--token', 's3cret', ...add])).code).toBe(0);
      expect((await cohort(url, ['acls', 'remove', '--principal', 'User:ops'])).code).toBe(0);
      expect((await cohort(url, ['acls', 'remove'])).code).toBe(2); // would delete everything
      expect(seen.map(({ method, url: path, authorization }) => [method, path, authorization])).toEqual([
        ['GET', '/v1/acls?principal=User%3Aops', 'Bearer from-env'],
        ['POST', '/v1/acls', 'Bearer s3cret'],
        ['DELETE', '/v1/acls', undefined],
      ]);
      expect(JSON.parse(seen[1].body)).toEqual({
        acls: [
          {
            principal: 'User:ops',
            host: '*',
            resourceType: 'GROUP',
            resourceName: 'billing',
            patternType: 'LITERAL',
            operation: 'READ',
            permission: 'ALLOW',
          },
        ],
      });
      expect(JSON.parse(seen[2].body)).toEqual({ filters: [{ principal: 'User:ops' }] });
    } finally {
      server.close();
    }
  });

  it('prints usage and exits 2 on bad usage; every command has --help', async () => {
    for (const args of [
      ['groups', 'list', '--bogus'],
      ['offsets', 'reset', 'g', '--all-topics'], // no strategy
      ['offsets', 'reset', 'g', '--to-earliest'], // no partitions
      ['offsets', 'reset', 'g', '--all-topics', '--to-latest', '--to-current'],
      ['topics', 'create', 't', '--partitions', 'many'],
      ['topics', 'create', 't'],
      ['groups', 'describe', 'g', '--members', '--state'],
      ['--output', 'yaml', 'topics', 'list'],
      ['nonsense'],
      ['groups'],
      [],
    ]) {
      const ran = await cohort(app.url, args);
      expect([args, ran.code]).toEqual([args, 2]);
      expect(ran.err).toContain('Usage: cohort');
    }
    const paths = commandPaths(buildProgram({ io: { out: () => {}, err: () => {} }, env: {} })).filter(
      (p) => p[p.length - 1] !== 'help',
    );
    expect(paths).toHaveLength(24);
    for (const path of [[], ...paths]) {
      const ran = await cohort(app.url, [...path, '--help']);
      expect([path, ran.code]).toEqual([path, 0]);
      expect(ran.out).toContain(`Usage: cohort${path.length > 0 ? ` ${path.join(' ')}` : ''}`);
    }
  });

  it('runs as the installed `cohort` bin with exit statuses 0, 1 and 2', async () => {
    const bin = resolve(__dirname, '../../node_modules/.bin/cohort');
    const exec = (args: string[]) =>
      new Promise<Ran>((done) =>
        execFile(bin, args, { env: { ...process.env, COHORT_URL: app.url } }, (error, out, err) =>
          done({ code: error ? Number(error.code) : 0, out, err }),
        ),
      );
    const listed = await exec(['--output', 'json', 'topics', 'list']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out).map((t: { name: string }) => t.name)).toContain('orders');
    expect((await exec(['topics', 'describe', 'ghost'])).code).toBe(1);
    const bad = await exec(['topics', '--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('Usage: cohort topics');
  });

  /**
   * A share worker on `socket` joins `groupId` until it is assigned partition 0 of `topic` (one partition),
   * whose share partition starts at the reported end, 0; then `endOffset` is reported and it leases them all.
   */
  async function leaseReported(
    socket: Awaited<ReturnType<typeof connect>>,
    share: { groupId: string; memberId: string; topic: string; endOffset: number },
  ): Promise<void> {
    const { groupId, memberId, topic, endOffset } = share;
    let epoch = 0;
    await eventually(
      async () => {
        const answer = await emit(socket, 'ShareGroupHeartbeat', {
          groupId,
          memberId,
          memberEpoch: epoch,
          subscribedTopicNames: [topic],
        } as P.ShareGroupHeartbeatRequest);
        epoch = answer.memberEpoch;
        return (answer.assignment?.topicPartitions ?? []).length > 0;
      },
      `${memberId} is assigned ${topic}-0`,
      10_000,
    );
    const acquire = () => emit(socket, 'ShareAcquire', { groupId, memberId, maxRecords: 10 } as P.ShareAcquireRequest);
    await acquire();
    await app
      .http()
      .put(`/v1/topics/${topic}/end-offsets`)
      .send({ partitions: [{ partition: 0, endOffset }] })
      .expect(200);
    expect((await acquire()).partitions[0].leases).toEqual([
      { firstOffset: 0, lastOffset: endOffset - 1, deliveryCount: 1 },
    ]);
  }

  it('describes a share group by its share partitions: start offset, end, offsets by state', async () => {
    await app.http().post('/v1/topics').send({ name: 'tasks', partitions: 1 }).expect(201);
    const socket = await connect(app.url);
    try {
      await leaseReported(socket, { groupId: 'task-workers', memberId: 'tw-1', topic: 'tasks', endOffset: 4 });

      const described = rows((await cohort(app.url, ['groups', 'describe', 'task-workers'])).out);
      expect(described[0]).toEqual([
        'GROUP',
        'TOPIC',
        'PARTITION',
        'START-OFFSET',
        'END-OFFSET',
        'AVAILABLE',
        'ACQUIRED',
        'ACKNOWLEDGED',
        'ARCHIVED',
        'OLDEST-LEASE-MS',
      ]);
      expect(described[1].slice(0, 9)).toEqual(['task-workers', 'tasks', '0', '0', '4', '0', '4', '0', '0']);
      expect(described[1][9]).toMatch(/^\d+$/);
      expect(rows((await cohort(app.url, ['groups', 'list'])).out)).toContainEqual([
        'task-workers',
        'share',
        'share',
        'Stable',
        '1',
        '0',
      ]);
    } finally {
      socket.disconnect();
    }
  });

  it("resets a share group's start offsets: a preview while it has members, executed once it is Empty, from a plan file too", async () => {
    await app.http().post('/v1/topics').send({ name: 'chores', partitions: 1 }).expect(201);
    const socket = await connect(app.url);
    try {
      await leaseReported(socket, { groupId: 'chore-workers', memberId: 'cw-1', topic: 'chores', endOffset: 6 });
      const acked = await emit(socket, 'ShareAcknowledge', {
        groupId: 'chore-workers',
        memberId: 'cw-1',
        acknowledgements: [
          { topic: 'chores', partition: 0, batches: [{ firstOffset: 0, lastOffset: 3, acknowledgeTypes: [1] }] },
        ],
      } as P.ShareAcknowledgeRequest);
      expect(acked.partitions[0].errorCode).toBe(0);

      // CURRENT-OFFSET is the SPSO; with a member, the preview says executing will be refused, and it is.
      const preview = await cohort(app.url, ['offsets', 'reset', 'chore-workers', '--all-topics', '--shift-by', '-3']);
      expect(preview.code).toBe(0);
      expect(rows(preview.out)).toEqual([
        ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'NEW-OFFSET'],
        ['chore-workers', 'chores', '0', '4', '1'],
      ]);
      expect(preview.err).toContain("the group 'chore-workers' is inactive, but the current state is Stable");
      const refused = await cohort(app.url, [
        'offsets',
        'reset',
        'chore-workers',
        '--all-topics',
        '--shift-by',
        '-3',
        '--execute',
      ]);
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/^Error: NON_EMPTY_GROUP: /);

      const left = await emit(socket, 'ShareGroupHeartbeat', {
        groupId: 'chore-workers',
        memberId: 'cw-1',
        memberEpoch: -1,
      } as P.ShareGroupHeartbeatRequest);
      expect(left.errorCode).toBe(0);
      const executed = await cohort(app.url, [
        '--output',
        'json',
        'offsets',
        'reset',
        'chore-workers',
        '--topic',
        'chores',
        '--shift-by',
        '-3',
        '--execute',
      ]);
      expect(JSON.parse(executed.out)).toEqual({
        groupId: 'chore-workers',
        dryRun: false,
        offsets: [{ topic: 'chores', partition: 0, currentOffset: 4, newOffset: 1 }],
      });
      const startOffset = async () =>
        rows((await cohort(app.url, ['groups', 'describe', 'chore-workers'])).out)[1].slice(1, 4);
      expect(await startOffset()).toEqual(['chores', '0', '1']);

      // A plan file: previewed per line, then sent as explicit start offsets.
      const plan = join(dir, 'chores.csv');
      writeFileSync(plan, 'chores,0,5\n');
      const fromFile = await cohort(app.url, ['offsets', 'reset', 'chore-workers', '--from-file', plan, '--execute']);
      expect(fromFile.code).toBe(0);
      expect(rows(fromFile.out)[1]).toEqual(['chore-workers', 'chores', '0', '1', '5']);
      expect(await startOffset()).toEqual(['chores', '0', '5']);
    } finally {
      socket.disconnect();
    }
  });
});
