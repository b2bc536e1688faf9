import { CohortClient, type CohortError, type Lease, type ShareMemberOptions } from '@cohort/client';
import { FakeCoordinator } from './fake-coordinator';
import { FakeShareGroup } from './fake-share-group';
import { FakeTimers } from './fake-timers';

/**
 * One share member of group `g` on topic `jobs` under fake timers, with a FakeShareGroup behind a
 * scripted coordinator; its events go to `log` ('lost jobs-0 3..5', 'acked jobs-0 0..2 accept') as the
 * share specs assert them.
 */
export function setupShare(options: Partial<ShareMemberOptions> = {}, partitions = 1) {
  const server = new FakeCoordinator();
  const timers = new FakeTimers();
  const group = new FakeShareGroup(server, timers, 'jobs', partitions);
  const client = new CohortClient({
    urls: ['http://bootstrap'],
    socketFactory: server.factory,
    timers,
    retry: { initialMs: 100, maxMs: 1000 },
  });
  const member = client.shareMember({ groupId: 'g', topics: ['jobs'], maxWaitMs: 5000, ...options });
  const log: string[] = [];
  const errors: CohortError[] = [];
  const range = (l: { topic: string; partition: number; firstOffset: number; lastOffset: number }) =>
    `${l.topic}-${l.partition} ${l.firstOffset}..${l.lastOffset}`;
  member.on('lost', (e) => log.push(...e.leases.map((l) => `lost ${range(l)}`)));
  member.on('acknowledged', (e) =>
    log.push(...e.offsets.map((o) => `acked ${range({ ...e, ...o })} ${o.type}${e.error ? ` ${e.error.name}` : ''}`)),
  );
  member.on('error', (e) => errors.push(e));
  return { server, timers, group, client, member, log, errors };
}

export type ShareCtx = ReturnType<typeof setupShare>;

/** Asks `leases` for the next lease and moves the fake clock until it comes (or the iteration ends: null). */
export async function nextLease(
  ctx: ShareCtx,
  leases: AsyncGenerator<Lease, void, undefined>,
  limitMs = 60_000,
): Promise<Lease | null> {
  let result: IteratorResult<Lease, void> | undefined;
  void leases.next().then((r) => (result = r));
  await ctx.timers.until(() => result !== undefined, limitMs);
  return result!.done ? null : result!.value;
}

/** Starts the member and waits until it has joined. */
export async function joined(ctx: ShareCtx): Promise<void> {
  const started = ctx.member.start();
  started.catch(() => undefined);
  await ctx.timers.until(() => ctx.member.state === 'stable' || ctx.member.state === 'stopped');
  await started;
}
