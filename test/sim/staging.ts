import { fetchOffset, type Scenario } from './scenario-kit';

/**
 * The KAFKA-7128 staging (reference S5) up to the moment that matters: A led with ISR {A, B}; C lagged
 * out of the ISR at LEO 8; A committed r8 and r9 but B never learned HW 10; A crashed and B leads from
 * epoch start 10 with HW 9; C has fetched r8 and asks at 9, whose answer is dropped. Returns the
 * partition, the nodes, and whether C was ever in the ISR below the epoch start.
 */
export async function stageStaleHwJoin(
  s: Scenario,
): Promise<{ p: number; A: number; B: number; C: number; joinedEarly: () => boolean; release: () => void }> {
  const [A, B, C] = [0, 1, 2];
  const p = s.partitionWithReplicas([A, B, C]);
  for (let i = 0; i < 8; i++) await s.produceAcked(A, p, `r${i}`);
  await s.until(() => s.replica(C, p).log.logEndOffset === 8, 5_000, 'C has 8');
  const unblockC = s.blockFetches(C, A);
  // A stuck follower at the LEO stays in sync until the leader appends (Kafka's isCaughtUp).
  await s.produceAcked(A, p, 'r8');
  // B learns the last record but not the HW that commits it.
  const releaseB = s.intercept((m) =>
    m.kind === 'fetch' && m.from === A && m.to === B && m.direction === 'response' && fetchOffset(m.request, p) === 10
      ? 'drop'
      : undefined,
  );
  await s.produceAcked(A, p, 'r9');
  s.sim.crash(A);
  releaseB();
  unblockC();
  await s.until(() => s.sim.replica(B, p)?.role === 'leader', 30_000, 'B elected');
  // C reaches B's HW (9) but not the epoch start (10).
  let cAtNine = false;
  const releaseC = s.intercept((m) => {
    if (
      m.kind === 'fetch' &&
      m.from === B &&
      m.to === C &&
      m.direction === 'response' &&
      fetchOffset(m.request, p) === 9
    ) {
      cAtNine = true;
      return 'drop';
    }
    return undefined;
  });
  let early = false;
  s.everyStep(
    () => (early ||= s.state(p).isr.some((m) => m.nodeId === C) && (s.sim.replica(C, p)?.log.logEndOffset ?? 0) < 10),
  );
  await s.until(() => cAtNine, 10_000, 'C fetches at 9');
  return { p, A, B, C, joinedEarly: () => early, release: releaseC };
}
