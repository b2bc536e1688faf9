import { startNode } from '../support/spawned-node';
import { tempDataDir } from '../support/test-app';

jest.setTimeout(120_000);

/**
 * What a person sees when a node starts (`npm start`): with stdout not a terminal, JSON lines; at info
 * one line says the URL, the mode, the data directory, the dashboard and how long start-up took, and
 * the per-partition and per-route lines are left to debug.
 */
describe('start-up output (e2e)', () => {
  it('prints one summary line among a few, as JSON when stdout is not a terminal', async () => {
    const data = tempDataDir();
    const node = startNode(data.dir);
    try {
      const summary = await node.summary;
      expect(summary).toMatchObject({ level: 30, context: 'Cohort' });
      const fields = summary.summary!;
      expect(fields).toMatchObject({
        mode: 'embedded',
        dataDir: data.dir,
        ready: true,
        loadingPartitions: 0,
        groups: 0,
      });
      expect(fields.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(fields.dashboard).toBe(`${fields.url}/ui`);
      expect(typeof fields.startupMs).toBe('number');
      expect(summary.msg).toContain(
        `Cohort listening on ${fields.url} (embedded mode, data in ${data.dir}); dashboard ${fields.url}/ui; ready in`,
      );
      // The node answers where the line says it listens.
      expect((await fetch(`${fields.url}/health/ready`)).status).toBe(200);

      const info = node.lines().filter((l) => l.level >= 30);
      expect(info.length).toBeLessThanOrEqual(5);
      expect(
        info.filter((l) =>
          /elected as the group coordinator|Mapped \{|dependencies initialized|loaded __consumer_offsets/.test(l.msg),
        ),
      ).toEqual([]);
    } finally {
      await node.stop();
      data.remove();
    }
  });

  it('logs each HTTP request once, when it ends: a client mistake at info with its credentials redacted, a success at debug', async () => {
    const data = tempDataDir();
    const node = startNode(data.dir);
    try {
      const url = (await node.summary).summary!.url as string;
      expect((await fetch(`${url}/health/ready`)).status).toBe(200);
      const refused = await fetch(`${url}/v1/topics`, {
        method: 'POST',
        headers: { authorization: 'Bearer secret-token', 'content-type': 'application/json' },
        body: '{"name":"t","partitions":"many"}',
      });
      expect(refused.status).toBe(400);
      // The line is written as the response ends, which may be just after the client has it.
      for (let i = 0; i < 100 && !node.lines().some((l) => l.req?.url === '/v1/topics'); i++)
        await new Promise((done) => setTimeout(done, 20));
      const requests = node.lines().filter((l) => l.req);
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({
        level: 30,
        req: { method: 'POST', url: '/v1/topics' },
        res: { statusCode: 400 },
      });
      expect(requests[0].req!.headers.authorization).toBe('[redacted]');
      expect(node.stdout()).not.toContain('secret-token');
    } finally {
      await node.stop();
      data.remove();
    }
  });
});
