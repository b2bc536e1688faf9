import { ManualClock } from '../time/manual-clock';
import type { FetchResponse } from '../transport/messages';
import { FetchPurgatory } from './fetch-purgatory';
import { TaskScope } from './task-scope';

/** A leader's state as a parked fetch re-reads it: the log end of each partition it asks for. */
function leader(partitions: number[]) {
  const logEnds = new Map(partitions.map((p) => [p, 0]));
  const reread = (): FetchResponse => ({
    errorCode: 0,
    partitions: partitions.map((partition) => ({
      partition,
      errorCode: 0,
      highWatermark: 0,
      logStartOffset: 0,
      logEndOffset: logEnds.get(partition)!,
      batches: [],
    })),
  });
  return { logEnds, reread };
}

const ends = (response: FetchResponse) => response.partitions.map((p) => p.logEndOffset);

describe('FetchPurgatory', () => {
  let clock: ManualClock;
  let scope: TaskScope;
  let purgatory: FetchPurgatory;
  beforeEach(() => {
    clock = new ManualClock();
    scope = new TaskScope(clock);
    purgatory = new FetchPurgatory(scope);
  });

  it('answers a fetch woken by appends to several partitions in one step with all of them, once', async () => {
    const state = leader([1, 2, 3]);
    let answers = 0;
    const parked = purgatory.park([1, 2, 3], 500, () => (answers++, state.reread()));
    // One flush of the coordinator appends to partitions 1 and 3 in one synchronous step.
    state.logEnds.set(1, 4);
    purgatory.wake(1);
    state.logEnds.set(3, 2);
    purgatory.wake(3);
    expect(ends(await parked)).toEqual([4, 0, 2]);
    expect(answers).toBe(1);
  });

  it('answers at maxWaitMs when nothing is appended, and a wake-up after that changes nothing', async () => {
    const state = leader([7]);
    let answers = 0;
    const parked = purgatory.park([7], 500, () => (answers++, state.reread()));
    clock.advance(499);
    await Promise.resolve();
    expect(answers).toBe(0);
    clock.advance(1);
    expect(ends(await parked)).toEqual([0]);
    purgatory.wake(7);
    await Promise.resolve();
    expect(answers).toBe(1);
  });

  it('leaves a fetch unanswered once its scope is closed (the node stopped), as its timer is cancelled', async () => {
    const state = leader([1]);
    let answered = false;
    void purgatory.park([1], 500, () => ((answered = true), state.reread()));
    purgatory.wake(1);
    scope.close();
    await Promise.resolve();
    clock.advance(1000);
    await Promise.resolve();
    expect(answered).toBe(false);
  });
});
