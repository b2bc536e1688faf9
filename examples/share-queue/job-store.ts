/**
 * The example's store of jobs, of its own (Cohort keeps no payloads): a JSON-lines file where line n
 * is the job at offset n. The producer appends lines and reports the new end offset to Cohort; workers
 * lease offsets from Cohort and read those lines here.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Job {
  id: number;
  /** What to do; the example's "work" is to reverse it. */
  text: string;
  /** A job no worker can do: workers reject it (it becomes a dead letter instead of coming back). */
  poison?: boolean;
}

/** JOBS_FILE, or one file in the temporary directory shared by the producer, the workers and serve.ts. */
export const JOBS_FILE = process.env.JOBS_FILE ?? join(tmpdir(), 'cohort-share-queue-jobs.jsonl');

/** Every job so far; `jobs[offset]` is the job at that offset. */
export function readJobs(file = JOBS_FILE): Job[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Job);
}

/** Appends `jobs` (one line each) and returns the new end offset: the number of jobs in the file. */
export function appendJobs(jobs: Job[], file = JOBS_FILE): number {
  appendFileSync(file, jobs.map((job) => `${JSON.stringify(job)}\n`).join(''));
  return readJobs(file).length;
}
