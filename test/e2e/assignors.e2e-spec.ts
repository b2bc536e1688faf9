import { eventually, type GroupMember, settledTogether } from '../support/group-member';
import { appPerFile } from '../support/app-per-file';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(60_000);

/** Assignors: the registry over REST (with a plugin from ASSIGNOR_PLUGINS), dry runs, server-side assignment (docs/protocol.md, libs/assignors/README.md). */
describe('assignors (e2e)', () => {
  const app = appPerFile({
    env: { ASSIGNOR_PLUGINS: './examples/assignor-plugin/least-loaded-assignor.ts' },
    topics: { jobs: 6 },
  });
  const pool = app.members({ topics: ['jobs'] });
  const http = app.http;

  it('lists the built-in assignors and the plugin with the group types each serves', async () => {
    const response = await http().get('/v1/assignors').expect(200);
    expect(response.body).toEqual(
      expect.arrayContaining([
        { name: 'range', supportedProtocols: ['eager'], builtIn: true, groupTypes: ['classic', 'consumer'] },
        { name: 'roundrobin', supportedProtocols: ['eager'], builtIn: true, groupTypes: ['classic'] },
        { name: 'sticky', supportedProtocols: ['eager'], builtIn: true, groupTypes: ['classic'] },
        {
          name: 'cooperative-sticky',
          supportedProtocols: ['cooperative', 'eager'],
          builtIn: true,
          groupTypes: ['classic'],
        },
        { name: 'uniform', supportedProtocols: [], builtIn: true, groupTypes: ['consumer'] },
        { name: 'least-loaded', supportedProtocols: ['eager'], builtIn: false, groupTypes: ['classic', 'consumer'] },
      ]),
    );
  });

  it("dry-runs consumer group assignors with groupType 'consumer': uniform keeps current targets, a plugin serves too, a classic-only name is 404", async () => {
    const body = {
      groupType: 'consumer',
      partitionsPerTopic: { jobs: 6 },
      members: [
        { memberId: 'a', topics: ['jobs'], ownedPartitions: [{ topic: 'jobs', partitions: [3, 4, 5] }] },
        { memberId: 'b', topics: ['jobs'] },
        { memberId: 'c', topics: ['jobs'] },
      ],
    };
    const uniform = await http().post('/v1/assignors/uniform/assign').send(body).expect(200);
    const held = (memberId: string): number[] =>
      (uniform.body.assignments[memberId] as { partitions: number[] }[]).flatMap((entry) => entry.partitions).sort();
    expect(held('a')).toHaveLength(2);
    expect([3, 4, 5]).toEqual(expect.arrayContaining(held('a')));
    expect([...held('a'), ...held('b'), ...held('c')].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const plugin = await http().post('/v1/assignors/least-loaded/assign').send(body).expect(200);
    expect(Object.keys(plugin.body.assignments).sort()).toEqual(['a', 'b', 'c']);
    const classicOnly = await http().post('/v1/assignors/roundrobin/assign').send(body).expect(404);
    expect(classicOnly.body).toMatchObject({ errorCode: 112, error: 'UNSUPPORTED_ASSIGNOR' });
    await http()
      .post('/v1/assignors/uniform/assign')
      .send({ ...body, groupType: 'share' })
      .expect(400);
  });

  it("refuses partitionsPerTopic keys that would reach an object's prototype (__proto__, constructor, prototype) as invalid input", async () => {
    const members = '[{ "memberId": "a", "topics": ["t"] }]';
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      // Raw JSON: a JavaScript object literal would turn "__proto__" into a prototype before it is sent.
      const refused = await http()
        .post('/v1/assignors/range/assign')
        .set('content-type', 'application/json')
        .send(`{ "partitionsPerTopic": { "t": 2, "${key}": { "t": 3 } }, "members": ${members} }`);
      expect({ key, status: refused.status }).toEqual({ key, status: 400 });
      expect(refused.body).toMatchObject({ errorCode: 42, error: 'INVALID_REQUEST' });
      expect(refused.body.message).toContain('partitionsPerTopic');
    }
    await http()
      .post('/v1/assignors/range/assign')
      .set('content-type', 'application/json')
      .send(`{ "partitionsPerTopic": { "t": 2 }, "members": ${members} }`)
      .expect(200);
  });

  it("dry-runs an assignor with Kafka's results, 404 for an unknown one, 400 for inconsistent input", async () => {
    const body = {
      partitionsPerTopic: { jobs: 6 },
      members: [
        { memberId: 'b', topics: ['jobs'] },
        { memberId: 'a', topics: ['jobs'] },
      ],
    };
    await http()
      .post('/v1/assignors/range/assign')
      .send(body)
      .expect(200, {
        assignments: { a: [{ topic: 'jobs', partitions: [0, 1, 2] }], b: [{ topic: 'jobs', partitions: [3, 4, 5] }] },
        unknownTopics: [],
      });
    const roundRobin = await http().post('/v1/assignors/roundrobin/assign').send(body).expect(200);
    expect(roundRobin.body.assignments).toEqual({
      a: [{ topic: 'jobs', partitions: [0, 2, 4] }],
      b: [{ topic: 'jobs', partitions: [1, 3, 5] }],
    });
    const unknown = await http().post('/v1/assignors/telepathic/assign').send(body).expect(404);
    expect(unknown.body).toMatchObject({ errorCode: 112, error: 'UNSUPPORTED_ASSIGNOR' });
    const duplicate = await http()
      .post('/v1/assignors/range/assign')
      .send({
        partitionsPerTopic: { jobs: 2 },
        members: [
          { memberId: 'a', topics: ['jobs'] },
          { memberId: 'a', topics: ['jobs'] },
        ],
      })
      .expect(400);
    expect(duplicate.body).toMatchObject({ errorCode: 42, error: 'INVALID_REQUEST' });
  });

  it.each(['range', 'least-loaded'])(
    'assigns on the server with %s: JoinGroup carries the assignment, no SyncGroup round needed',
    async (assignor) => {
      const groupId = `server-${assignor}`;
      const [a, b] = [
        await pool.member(groupId, { serverAssignor: assignor }),
        await pool.member(groupId, { serverAssignor: assignor }),
      ];
      a.start();
      b.start();
      const disjointCover = (members: GroupMember[]): boolean => {
        const held = members.flatMap((m) => m.held());
        return held.length === 6 && new Set(held).size === 6;
      };
      await eventually(() => settledTogether([a, b]) && disjointCover([a, b]), 'both assigned by the server');
      // The autopilot falls back to nothing: an assignment it holds came on a JoinGroup response.
      expect([a.assignedBy, b.assignedBy, a.problems, b.problems]).toEqual(['JoinGroup', 'JoinGroup', [], []]);
      const group = await http().get(`/v1/groups/${groupId}`).expect(200);
      expect(group.body.state).toBe('Stable');
      // A new member's JoinGroup response carries its own assignment of the new generation, the one REST shows.
      const c = await pool.member(groupId, { serverAssignor: assignor });
      const joined = await c.join();
      expect(joined.errorCode).toBe(0);
      expect(joined.assignment).toEqual({ partitions: expect.any(Array) });
      expect(c.assignedBy).toBe('JoinGroup');
      // c's autopilot stays off: a rejoin of its own could start yet another generation.
      await eventually(
        () => settledTogether([a, b, c]) && disjointCover([a, b, c]),
        'three members assigned by the server',
      );
      const described = (await http().get(`/v1/groups/${groupId}`).expect(200)).body as {
        generationId: number;
        members: { memberId: string; assignment: unknown }[];
      };
      expect(described.generationId).toBe(joined.generationId);
      expect(described.members.find((m) => m.memberId === c.memberId)?.assignment).toEqual(joined.assignment);
      expect([a, b, c].map((m) => [m.assignedBy, m.problems])).toEqual([
        ['JoinGroup', []],
        ['JoinGroup', []],
        ['JoinGroup', []],
      ]);
      // Operators see each server-side assignment in /metrics, by assignor and outcome.
      const metrics = await http().get('/metrics').expect(200);
      expect(metrics.text).toMatch(
        new RegExp(`cohort_server_assignments_total\\{assignor="${assignor}",outcome="ok"\\} [1-9]`),
      );
      expect(metrics.text).toMatch(
        new RegExp(`cohort_server_assignment_duration_seconds_count\\{assignor="${assignor}"\\} [1-9]`),
      );
    },
  );
});
