import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import { startNode } from '../support/spawned-node';
import { connect, request } from '../support/socket-client';
import { TmpfsMount } from '../support/tmpfs-mount';

jest.setTimeout(180_000);

interface CommitAnswer {
  topics: Array<{ name: string; partitions: Array<{ partitionIndex: number; errorCode: number }> }>;
}

const GROUPS = Array.from({ length: 64 }, (_, i) => `disk-group-${i}`);
/** Each commit carries this much metadata, so a few hundred of them fill what the filler leaves free. */
const METADATA = 'm'.repeat(1024);

/**
 * DATA_DIR on a real 16 MiB tmpfs that fills up under commit load (socket.io OffsetCommits from 16
 * clients at once): the failed writes are answered 56 KAFKA_STORAGE_ERROR, reads (OffsetFetch, REST)
 * are served, readiness says why it is down, one line says what happened; once the tmpfs is grown the
 * node takes writes again by itself, and after a crash every acknowledged commit is there — and no
 * commit that was answered 56.
 */
describe.each(['always', 'replicated'])('a DATA_DIR that fills up, LOG_FLUSH_POLICY=%s (e2e, real tmpfs)', (policy) => {
  it('answers writes 56 while full, serves reads, takes writes again once the disk grows, and keeps exactly what it acknowledged', async () => {
    const disk = TmpfsMount.create('16m');
    const dataDir = join(disk.dir, 'data');
    const env = { LOG_FLUSH_POLICY: policy };
    let node = startNode(dataDir, env);
    const sockets: Socket[] = [];
    try {
      let url = String((await node.summary).summary!.url);
      expect((await post(`${url}/v1/topics`, { name: 'orders', partitions: 4 })).status).toBe(201);
      for (let i = 0; i < 16; i++) sockets.push(await connect(url));

      const acked = new Map<string, number>();
      const answered = new Map<number, number>();
      let next = 0;
      /** One OffsetCommit per client, each for its own group, all at once. */
      const round = async (): Promise<number[]> =>
        Promise.all(
          sockets.map(async (socket) => {
            const groupId = GROUPS[next % GROUPS.length];
            const offset = ++next;
            const answer = await request<CommitAnswer>(socket, 'OffsetCommit', {
              groupId,
              generationId: -1,
              topics: [
                {
                  name: 'orders',
                  partitions: [{ partitionIndex: 0, committedOffset: offset, committedMetadata: METADATA }],
                },
              ],
            });
            const code = answer.topics[0].partitions[0].errorCode;
            answered.set(code, (answered.get(code) ?? 0) + 1);
            if (code === 0) acked.set(groupId, offset);
            return code;
          }),
        );

      for (let i = 0; i < 4; i++) expect(await round()).toEqual(sockets.map(() => 0));
      disk.fill(128 * 1024);
      for (let i = 0; i < 300 && (answered.get(56) ?? 0) < 40; i++) await round();
      // Every failure was a storage error: no NOT_COORDINATOR, no timeout.
      expect([...answered.keys()].sort((a, b) => a - b)).toEqual([0, 56]);
      expect(answered.get(56)).toBeGreaterThanOrEqual(40);
      const refusedBefore = answered.get(56)!;

      // Reads are served: OffsetFetch over socket.io, the offsets and the group over REST.
      for (const [groupId, offset] of [...acked].slice(0, 8)) {
        const fetched = await request<{
          errorCode: number;
          topics: Array<{ partitions: Array<{ committedOffset: number }> }>;
        }>(sockets[0], 'OffsetFetch', { groupId, topics: null });
        expect(fetched.errorCode).toBe(0);
        expect(fetched.topics[0].partitions[0].committedOffset).toBe(offset);
        const rest = (await (await fetch(`${url}/v1/groups/${groupId}/offsets`)).json()) as {
          offsets: Array<{ committedOffset: number }>;
        };
        expect(rest.offsets[0].committedOffset).toBe(offset);
        expect((await fetch(`${url}/v1/groups/${groupId}`)).status).toBe(200);
      }
      // Still full: a write now is refused at once.
      expect(await round()).toContain(56);

      const ready = await fetch(`${url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(JSON.stringify(await ready.json())).toMatch(/storage fault \(ENOSPC\)/);
      let metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metricValue(metrics, 'cohort_storage_faults_total')).toBe(1);
      expect(metricValue(metrics, 'cohort_storage_fault')).toBe(1);
      expect(metricValue(metrics, 'cohort_log_write_failures_total{error="KAFKA_STORAGE_ERROR"}')).toBeGreaterThan(0);
      // One line says what happened; the failed writes themselves are counted, not logged one by one.
      const faultLines = node.lines().filter((l) => l.msg.includes('storage fault in DATA_DIR'));
      expect(faultLines).toHaveLength(1);
      expect(faultLines[0]).toMatchObject({ level: 50 });
      expect(faultLines[0].msg).toContain(dataDir);
      expect(faultLines[0].msg).toContain('ENOSPC');
      expect(node.lines().filter((l) => l.level >= 40 && l.msg.includes('write to __consumer_offsets'))).toEqual([]);

      // The operator grows the disk: writes resume by themselves.
      disk.resize('64m');
      const grown = performance.now();
      let resumedAfterMs = -1;
      while (performance.now() - grown < 30_000) {
        if ((await round()).every((code) => code === 0)) {
          resumedAfterMs = performance.now() - grown;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(resumedAfterMs).toBeGreaterThanOrEqual(0);
      expect(node.lines().filter((l) => l.msg.includes('writes resumed'))).toHaveLength(1);
      expect((await fetch(`${url}/health/ready`)).status).toBe(200);
      metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metricValue(metrics, 'cohort_storage_fault')).toBe(0);
      for (let i = 0; i < 4; i++) expect(await round()).toEqual(sockets.map(() => 0));

      // A crash, then a restart: what was acknowledged is there, and nothing answered 56 came back.
      for (const socket of sockets.splice(0)) socket.close();
      await node.stop('SIGKILL');
      node = startNode(dataDir, env);
      url = String((await node.summary).summary!.url);
      for (const groupId of GROUPS) {
        const body = (await (await fetch(`${url}/v1/groups/${groupId}/offsets`)).json()) as {
          offsets: Array<{ committedOffset: number }>;
        };
        expect({ groupId, offset: body.offsets[0]?.committedOffset }).toEqual({ groupId, offset: acked.get(groupId) });
      }
      // Figures for the report: how many writes were refused, and how long the heal took once space was back.
      process.stdout.write(
        `storage-full (${policy}): ${acked.size} groups acknowledged, ${refusedBefore} writes refused with 56 while full, writes resumed ${Math.round(resumedAfterMs)} ms after the disk grew\n`,
      );
    } finally {
      for (const socket of sockets) socket.close();
      await node.stop('SIGKILL').catch(() => undefined);
      disk.remove();
    }
  });
});

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
}
