// A log that keeps each member's changes in runs of its own (what the heterogeneous builder asks for)
// must read back exactly as one that appends them in turn: the targets members get are computed from
// it, so a change lost or reordered where a member's run fills up would hand out the wrong partitions.
import { seededRandom } from '../common/seeded-random';
import { freshSmallTarget } from './fresh-small-target';
import type { ModelTopic } from './group-model';
import { topicIdOf, uuidHashCode } from './java-uuid';
import { TargetLog } from './member-target-log';
import { TargetReplay } from './target-replay';

const topics: ModelTopic[] = ['a', 'b', 'c'].map((name) => {
  const id = topicIdOf(name);
  return { name, id, idHash: uuidHashCode(id), partitions: 64 };
});

/** The same changes, members interleaved, in a log of the given run length (0: one after another). */
function logOf(chunk: number, seed: number): TargetLog {
  const random = seededRandom(seed);
  const log = new TargetLog(5, new Int32Array([4, 4, 4]), 16, chunk);
  const held: number[][] = [[], [], [], [], []];
  for (let i = 0; i < 120; i++) {
    const member = random(5);
    const topic = random(3);
    const mine = held[member];
    if (mine.length > 0 && random(4) === 0) {
      const key = mine.splice(random(mine.length), 1)[0];
      log.remove(member, key >> 6, key & 63);
    } else {
      const partition = random(64);
      log.add(member, topic, partition);
      if (!mine.includes(topic * 64 + partition)) mine.push(topic * 64 + partition);
    }
  }
  return log;
}

function targets(log: TargetLog) {
  const replay = new TargetReplay(topics, log, null);
  return [0, 1, 2, 3, 4].map((m) => ({ small: freshSmallTarget(log, m, topics), replayed: replay.replay(m, []) }));
}

describe('TargetLog with per-member runs', () => {
  it.each([1, 2, 3, 7])('reads back every member as the unchunked log does (runs of %i changes)', (chunk) => {
    for (let seed = 1; seed <= 20; seed++) {
      const expected = targets(logOf(0, seed));
      expect(expected.some(({ replayed }) => replayed !== null && replayed.length > 1)).toBe(true);
      expect(targets(logOf(chunk, seed))).toEqual(expected);
    }
  });
});
