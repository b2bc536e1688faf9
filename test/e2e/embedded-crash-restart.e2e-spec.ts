import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startNode } from '../support/spawned-node';
import { tempDataDir } from '../support/test-app';

jest.setTimeout(120_000);

/**
 * An embedded node under LOG_FLUSH_POLICY=always (its default) killed outright: every offset it
 * acknowledged is there after the restart. Its appends were made durable through the log journal, so
 * the restart replays the journal (and says so in its log); a clean stop leaves no journal behind.
 */
describe('embedded node killed and restarted (e2e)', () => {
  it('keeps every acknowledged commit through SIGKILL, replaying its log journal, and a clean stop leaves none', async () => {
    const data = tempDataDir();
    const journalDir = join(data.dir, 'log-journal');
    let node = startNode(data.dir);
    try {
      let url = String((await node.summary).summary!.url);
      expect((await post(`${url}/v1/topics`, { name: 'orders', partitions: 4 })).status).toBe(201);
      const groups = Array.from({ length: 20 }, (_, i) => `crash-group-${i}`);
      for (const [i, groupId] of groups.entries()) {
        const res = await post(`${url}/v1/groups/${groupId}/offsets`, {
          topics: [{ name: 'orders', partitions: [{ partitionIndex: i % 4, committedOffset: 100 + i }] }],
        });
        expect(res.status).toBe(200);
      }
      // Each acknowledged commit waited for a flush of the journal, which /metrics counts.
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(Number(/^cohort_log_flush_duration_seconds_count (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(20);
      expect(Number(/^cohort_log_flush_bytes_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
      await node.stop('SIGKILL');
      expect(
        readdirSync(journalDir)
          .filter((f) => f.endsWith('.journal'))
          .reduce((n, f) => n + statSync(join(journalDir, f)).size, 0),
      ).toBeGreaterThan(0);

      node = startNode(data.dir);
      url = String((await node.summary).summary!.url);
      for (const [i, groupId] of groups.entries()) {
        const body = (await (await fetch(`${url}/v1/groups/${groupId}/offsets`)).json()) as {
          offsets: Array<{ topic: string; partition: number; committedOffset: number }>;
        };
        expect(body.offsets).toEqual([
          expect.objectContaining({ topic: 'orders', partition: i % 4, committedOffset: 100 + i }),
        ]);
      }
      expect(
        node.lines().some((l) => l.level === 40 && l.msg.includes('replayed the log journal after an unclean stop')),
      ).toBe(true);

      await node.stop();
      expect(existsSync(journalDir) ? readdirSync(journalDir) : []).toEqual([]);
    } finally {
      await node.stop('SIGKILL').catch(() => undefined);
      data.remove();
    }
  });
});

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
