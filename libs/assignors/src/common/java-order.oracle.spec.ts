// Checks our emulation of Java's HashMap/HashSet iteration order against the real JDK (Java 17 is part
// of this machine image): the order decides a few of Kafka's sticky assignments, so it must be exact.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { javaStringHashCode } from '@cohort/protocol';
import { seededRandom } from './seeded-random';
import { JavaHashSetOrder, javaHashMapOrder, topicPartitionHashCode } from './java-order';

const ORACLE = path.join(__dirname, 'java-oracle', 'HashOrderOracle.java');

function runOracle(lines: string[]): string[] {
  const run = spawnSync('java', [ORACLE], { input: `${lines.join('\n')}\n`, encoding: 'utf8', timeout: 120_000 });
  if (run.error || run.status !== 0) throw new Error(`java oracle failed: ${run.error?.message ?? run.stderr}`);
  return run.stdout.trimEnd().split('\n');
}

describe('Java HashMap/HashSet order emulation, checked against the JDK', () => {
  const random = seededRandom(42);
  const alphabet = 'abcXYZ09-_.é中';
  const randomId = (): string => {
    const length = 1 + random(24);
    let id = random(3) === 0 ? 'consumer-' : '';
    for (let i = 0; i < length; i++) id += alphabet[random(alphabet.length)];
    return id;
  };

  it('iterates member ids as java.util.HashMap does, for groups of every size up to 200', () => {
    const cases: string[][] = [];
    for (let n = 1; n <= 200; n += n < 30 ? 1 : 17) {
      const ids = new Set<string>();
      while (ids.size < n) ids.add(randomId());
      cases.push([...ids]);
    }
    cases.push(
      ['consumer1', 'consumer2', 'consumer3', 'consumer4'],
      Array.from({ length: 40 }, (_, i) => `c${String(i).padStart(2, '0')}`),
    );
    const expected = runOracle(cases.map((ids) => `MAP ${ids.join('\t')}`));
    expect(cases.map((ids) => javaHashMapOrder(ids).join(' '))).toEqual(expected);
  }, 120_000);

  it('gives the first element of a java.util.HashSet of TopicPartitions through adds and removes', () => {
    const topics = ['topic', 'topic1', 't2', 'orders'];
    const cases: string[][] = [];
    for (let c = 0; c < 60; c++) {
      const ops: string[] = [];
      const present: string[] = [];
      const steps = 5 + random(60);
      for (let s = 0; s < steps; s++) {
        if (present.length > 0 && random(3) === 0) {
          const [removed] = present.splice(random(present.length), 1);
          ops.push(`-${removed}`);
        } else {
          const tp = `${topics[random(topics.length)]}/${random(c < 30 ? 20 : 400)}`;
          ops.push(`+${tp}`);
          if (!present.includes(tp)) present.push(tp);
        }
        ops.push('?');
      }
      cases.push(ops);
    }
    const expected = runOracle(cases.map((ops) => `SET ${ops.join(' ')}`));
    const actual = cases.map((ops) => {
      const ids = new Map<string, number>();
      const names: string[] = [];
      const idOf = (tp: string): number => {
        if (!ids.has(tp)) {
          ids.set(tp, names.length);
          names.push(tp);
        }
        return ids.get(tp)!;
      };
      const set = new JavaHashSetOrder((id) => {
        const [topic, partition] = names[id].split('/');
        return topicPartitionHashCode(javaStringHashCode(topic), Number(partition));
      });
      const firsts: string[] = [];
      for (const op of ops) {
        if (op === '?') firsts.push(set.size === 0 ? '-' : names[set.first()]);
        else if (op[0] === '+') set.add(idOf(op.slice(1)));
        else set.delete(idOf(op.slice(1)));
      }
      return firsts.join(' ');
    });
    expect(actual).toEqual(expected);
  }, 120_000);
});
