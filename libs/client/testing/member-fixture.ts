import { CohortClient, type CohortClientOptions, type CohortError, type MemberOptions } from '@cohort/client';
import { FakeCoordinator } from './fake-coordinator';
import { FakeTimers } from './fake-timers';

/**
 * One member of group `g` on topic `orders` under fake timers and a scripted coordinator, with its
 * events written to `log` as the member specs assert them. `clientOptions` override the client's
 * (its bootstrap `urls`, `metadataMaxAgeMs`, or timers that wrap the fake ones).
 */
export function setup(options: Partial<MemberOptions> = {}, clientOptions: Partial<CohortClientOptions> = {}) {
  const server = new FakeCoordinator();
  const timers = new FakeTimers();
  const client = new CohortClient({
    urls: ['http://bootstrap'],
    socketFactory: server.factory,
    timers,
    retry: { initialMs: 100, maxMs: 1000 },
    ...clientOptions,
  });
  const member = client.member({
    groupId: 'g',
    topics: ['orders'],
    sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 3000,
    rebalanceTimeoutMs: 30_000,
    ...options,
  });
  const log: string[] = [];
  const errors: CohortError[] = [];
  const crashes: CohortError[] = [];
  const parts = (list: { topic: string; partitions: number[] }[]) =>
    list.flatMap((p) => p.partitions.map((n) => `${p.topic}-${n}`)).join(',');
  member.on('joined', (e) => log.push(`joined g${e.generationId}${e.leader ? ' leader' : ''}`));
  member.on('assigned', (e) => log.push(`assigned [${parts(e.partitions)}] g${e.generationId}`));
  member.on('revoked', (e) => log.push(`revoked [${parts(e.partitions)}] g${e.generationId}`));
  member.on('lost', (e) => log.push(`lost [${parts(e.partitions)}]`));
  member.on('rebalancing', (e) => log.push(`rebalancing g${e.generationId}`));
  member.on('error', (e) => errors.push(e));
  member.on('crash', (e) => crashes.push(e));
  return { server, timers, client, member, log, errors, crashes };
}

export type Ctx = ReturnType<typeof setup>;

/** Starts the member and waits until it is stable (or stopped). */
export async function stable(ctx: Ctx): Promise<void> {
  const started = ctx.member.start();
  started.catch(() => undefined);
  await ctx.timers.until(() => ctx.member.state === 'stable' || ctx.member.state === 'stopped');
  await started;
}

/** An assignment of all four partitions of `orders`. */
export const assignAll = { partitions: [{ topic: 'orders', partitions: [0, 1, 2, 3] }] };
