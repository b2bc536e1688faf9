// Checks our emulation of java.util.HashMap's iteration order (puts, computeIfAbsent, removes, the
// resizes they cause, chains of nine in a small table) against the JDK (Java 17 is part of this machine
// image): Kafka's uniform assignor's results depend on it.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { spreadHash } from '../common/java-order';
import { seededRandom } from '../common/seeded-random';
import { JavaHashTable } from './java-hash-table';

const ORACLE = path.join(__dirname, 'java-oracle', 'HashTableOracle.java');

function runOracle(lines: string[]): string[] {
  const run = spawnSync('java', [ORACLE], { input: `${lines.join('\n')}\n`, encoding: 'utf8', timeout: 120_000 });
  if (run.error || run.status !== 0) throw new Error(`java oracle failed: ${run.error?.message ?? run.stderr}`);
  return run.stdout.trimEnd().split('\n');
}

describe('Java HashMap order emulation, checked against the JDK', () => {
  it('iterates keys as java.util.HashMap does through puts, computeIfAbsent and removes', () => {
    const random = seededRandom(7);
    const cases: { capacity: number | undefined; ops: string[] }[] = [];
    for (let c = 0; c < 300; c++) {
      const capacity = random(3) === 0 ? undefined : random(40);
      // Small hash ranges and strides of 16 make long chains, and chains of nine in small tables; at
      // most seven keys share a bucket of a 64-bucket table, where Java would make a tree (not emulated).
      const hashRange = [8, 64, 1 << 30][random(3)];
      const stride = random(3) === 0 ? 16 : 1;
      const perBucketOf64 = new Map<number, number>();
      const newHash = (): number => {
        for (let attempt = 0; ; attempt++) {
          const hash = attempt < 20 ? (random(hashRange) * stride) | 0 : random(1 << 30);
          const bucket = spreadHash(hash) & 63;
          if ((perBucketOf64.get(bucket) ?? 0) < 7) {
            perBucketOf64.set(bucket, (perBucketOf64.get(bucket) ?? 0) + 1);
            return hash;
          }
        }
      };
      const present: number[] = [];
      const hashes = new Map<number, number>();
      const ops: string[] = [];
      const steps = 1 + random(80);
      for (let s = 0; s < steps; s++) {
        if (present.length > 0 && random(5) === 0) {
          const [id] = present.splice(random(present.length), 1);
          ops.push(`r${id}`);
          continue;
        }
        const existing = present.length > 0 && random(4) === 0;
        const id = existing ? present[random(present.length)] : hashes.size;
        if (!hashes.has(id)) hashes.set(id, newHash());
        if (!existing) present.push(id);
        ops.push(`${random(2) === 0 ? 'p' : 'c'}${id}:${hashes.get(id)}`);
      }
      cases.push({ capacity, ops });
    }
    const expected = runOracle(cases.map(({ capacity, ops }) => `${capacity ?? '-'} ${ops.join(' ')}`));
    const actual = cases.map(({ capacity, ops }) => {
      const table = new JavaHashTable(capacity);
      const handles = new Map<number, number>();
      const idOf: number[] = [];
      for (const op of ops) {
        const id = Number(op.slice(1).split(':')[0]);
        if (op[0] === 'r') {
          table.remove(handles.get(id) as number);
          handles.delete(id);
        } else if (handles.has(id)) {
          if (op[0] === 'c') table.computeIfAbsentHit();
        } else {
          const hash = Number(op.split(':')[1]);
          const handle = op[0] === 'p' ? table.insert(hash) : table.computeIfAbsentInsert(hash);
          handles.set(id, handle);
          idOf[handle] = id;
        }
      }
      return table
        .order()
        .map((handle) => idOf[handle])
        .join(' ');
    });
    expect(actual).toEqual(expected);
  }, 120_000);
});
