import { open } from 'node:fs/promises';
import * as path from 'node:path';

/**
 * File names inside one partition directory, as Kafka names them: a segment is
 * `<baseOffset, 20 digits>.log`. Compaction writes `<base>.cleaned`, then renames it to
 * `<base>-<nextBase>.swap` once it is complete and durable; recovery finishes such a swap (it
 * replaces every segment with base in [base, nextBase)) and deletes any `.cleaned` leftover.
 */
const DIGITS = 20;

export function segmentFileName(baseOffset: number): string {
  return `${String(baseOffset).padStart(DIGITS, '0')}.log`;
}

export function cleanedFileName(baseOffset: number): string {
  return `${String(baseOffset).padStart(DIGITS, '0')}.cleaned`;
}

export function swapFileName(baseOffset: number, nextBaseOffset: number): string {
  return `${String(baseOffset).padStart(DIGITS, '0')}-${String(nextBaseOffset).padStart(DIGITS, '0')}.swap`;
}

export type PartitionFile =
  | { kind: 'segment'; name: string; baseOffset: number }
  | { kind: 'swap'; name: string; baseOffset: number; nextBaseOffset: number }
  | { kind: 'leftover'; name: string };

/** Classifies a directory entry; files that are none of ours (e.g. checkpoints) are undefined. */
export function parsePartitionFile(name: string): PartitionFile | undefined {
  let m = /^(\d{20})\.log$/.exec(name);
  if (m) return { kind: 'segment', name, baseOffset: Number(m[1]) };
  m = /^(\d{20})-(\d{20})\.swap$/.exec(name);
  if (m) return { kind: 'swap', name, baseOffset: Number(m[1]), nextBaseOffset: Number(m[2]) };
  if (/^\d{20}\.cleaned$/.test(name)) return { kind: 'leftover', name };
  return undefined;
}

/** Makes creations, renames and deletions in `dir` durable (they live in the directory, not the file). */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function inDir(dir: string, name: string): string {
  return path.join(dir, name);
}

/** For deleting a file that may already be gone. */
export function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
