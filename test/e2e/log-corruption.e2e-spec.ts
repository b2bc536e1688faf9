import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { partitionFor } from '@cohort/protocol';
import { startNode } from '../support/spawned-node';
import { tempDataDir } from '../support/test-app';

jest.setTimeout(180_000);

const PARTITIONS = 50;
const DAMAGED_GROUP = 'ledger';
/** A group on another partition than DAMAGED_GROUP's. */
const OTHER_GROUP = ['ledger-b', 'ledger-c', 'ledger-d'].find(
  (g) => partitionFor(g, PARTITIONS) !== partitionFor(DAMAGED_GROUP, PARTITIONS),
)!;

/**
 * One flipped byte in the middle of a segment, found on the next start after a clean stop (the file's
 * mtime changed, so the clean-close index no longer vouches for it): cutting the log there would take
 * back commits that were acknowledged. The node leaves that partition unserved and says so (an error
 * line naming the partition and the offsets, readiness down, a metric) while the others serve; with
 * LOG_RECOVERY_TRUNCATE_ON_CORRUPTION=true it cuts the log, says what was lost, and serves it.
 */
describe('a corrupted byte in a segment (e2e, real process)', () => {
  it('leaves the partition unserved, loudly, unless the operator allows the cut', async () => {
    const data = tempDataDir();
    let node = startNode(data.dir);
    try {
      let url = String((await node.summary).summary!.url);
      expect((await post(`${url}/v1/topics`, { name: 'orders', partitions: 1 })).status).toBe(201);
      for (let offset = 1; offset <= 200; offset++) expect((await commit(url, DAMAGED_GROUP, offset)).status).toBe(200);
      expect((await commit(url, OTHER_GROUP, 7)).status).toBe(200);
      await node.stop();

      // One byte flipped in the middle of the group's segment, well before its last batch.
      const partition = partitionFor(DAMAGED_GROUP, PARTITIONS);
      const dir = join(data.dir, `__consumer_offsets-${partition}`);
      const segment = join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.log'))!,
      );
      const bytes = readFileSync(segment);
      bytes[Math.floor(bytes.length / 2)] ^= 0x20;
      writeFileSync(segment, bytes);

      node = startNode(data.dir);
      // Said at once: waiting would not make the node ready.
      const notReady = await node.summary;
      expect(notReady.summary).toMatchObject({ ready: false, loadingPartitions: 0 });
      expect(notReady.msg).toContain(`not ready after`);
      expect(notReady.msg).toContain(`damaged log, not served: __consumer_offsets-${partition}`);
      url = String(notReady.summary!.url);
      const refusal = node.lines().filter((l) => l.level === 50 && l.msg.includes('is not served'));
      expect(refusal).toHaveLength(1);
      const lost = /offsets (\d+)\.\.(\d+)/.exec(refusal[0].msg)!;
      expect(refusal[0].msg).toContain(`__consumer_offsets-${partition} is not served`);
      expect(refusal[0].msg).toContain('LOG_RECOVERY_TRUNCATE_ON_CORRUPTION=true');
      const [from, to] = [Number(lost[1]), Number(lost[2])];
      expect(from).toBeGreaterThan(0);
      expect(to).toBeGreaterThanOrEqual(from);
      // The whole tail past the damage is known to have been written, up to the last commit.
      expect(to - from + 1).toBeGreaterThan(60);
      expect(readFileSync(segment).equals(bytes)).toBe(true);

      const ready = await fetch(`${url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(JSON.stringify(await ready.json())).toContain(`__consumer_offsets-${partition} (offsets ${from}..${to}`);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^cohort_log_damaged_partitions 1$/m);
      // The damaged group is not answered from a log cut short; the other partitions serve as usual.
      expect((await fetch(`${url}/v1/groups/${DAMAGED_GROUP}/offsets`)).status).not.toBe(200);
      expect(await committedOffset(url, OTHER_GROUP)).toBe(7);
      expect((await commit(url, OTHER_GROUP, 8)).status).toBe(200);
      await node.stop();

      // The operator accepts the loss.
      node = startNode(data.dir, { LOG_RECOVERY_TRUNCATE_ON_CORRUPTION: 'true' });
      url = String((await node.summary).summary!.url);
      expect((await fetch(`${url}/health/ready`)).status).toBe(200);
      const cut = node.lines().filter((l) => l.level === 50 && l.msg.includes('the log was cut there'));
      expect(cut).toHaveLength(1);
      expect(cut[0].msg).toContain(`__consumer_offsets-${partition}`);
      expect(cut[0].msg).toContain(`losing offsets ${from}..${to}`);
      expect(await (await fetch(`${url}/metrics`)).text()).toMatch(
        new RegExp(`^cohort_log_recovery_offsets_cut_total ${to - from + 1}$`, 'm'),
      );
      const rolledBack = await committedOffset(url, DAMAGED_GROUP);
      expect(rolledBack).toBeGreaterThan(0);
      expect(rolledBack).toBeLessThan(200);
      expect(await committedOffset(url, OTHER_GROUP)).toBe(8);
      process.stdout.write(
        `log-corruption: refused __consumer_offsets-${partition} (offsets ${from}..${to} would be lost); allowed cut rolled ${DAMAGED_GROUP} back from 200 to ${rolledBack}\n`,
      );
    } finally {
      await node.stop('SIGKILL').catch(() => undefined);
      data.remove();
    }
  });
});

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function commit(url: string, groupId: string, offset: number): Promise<Response> {
  return post(`${url}/v1/groups/${groupId}/offsets`, {
    topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: offset }] }],
  });
}

async function committedOffset(url: string, groupId: string): Promise<number | undefined> {
  const body = (await (await fetch(`${url}/v1/groups/${groupId}/offsets`)).json()) as {
    offsets: Array<{ committedOffset: number }>;
  };
  return body.offsets[0]?.committedOffset;
}
