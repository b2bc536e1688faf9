/**
 * Appends jobs to the example's job file and tells Cohort the topic's new end offset, which is all a
 * share group needs to lease them out (PUT /v1/topics/:name/end-offsets). Run it with a node running:
 *
 *   npx tsx examples/share-queue/producer.ts [count] [--poison N]
 *
 * Environment: COHORT_URL (default http://localhost:3000), TOPIC (default jobs), JOBS_FILE.
 */
import { CohortClient } from '@cohort/client';
import { appendJobs, JOBS_FILE, readJobs } from './job-store';

const WORDS = ['resize', 'encode', 'index', 'thumbnail', 'transcode', 'notify', 'archive', 'invoice'];

async function main(argv: string[]): Promise<void> {
  const count = Number(argv[0] ?? 10);
  const poisonAt = argv.indexOf('--poison') >= 0 ? Number(argv[argv.indexOf('--poison') + 1]) : -1;
  if (!Number.isInteger(count) || count < 1) throw new Error(`count must be a positive integer, not "${argv[0]}"`);
  const topic = process.env.TOPIC ?? 'jobs';
  const client = new CohortClient({ urls: (process.env.COHORT_URL ?? 'http://localhost:3000').split(',') });
  const admin = client.admin();
  // One partition is enough for a queue: every worker of the share group leases from it.
  await admin.describeTopic(topic).catch(async () => admin.createTopic(topic, 1));
  const first = readJobs().length;
  const jobs = Array.from({ length: count }, (_, i) => ({
    id: first + i,
    text: `${WORDS[(first + i) % WORDS.length]} #${first + i}`,
    ...(i === poisonAt ? { poison: true } : {}),
  }));
  const end = appendJobs(jobs);
  await admin.reportOffsets(topic, [{ partition: 0, endOffset: end }]);
  console.log(`appended jobs ${first}..${end - 1} to ${JOBS_FILE}; ${topic}-0 ends at ${end}`);
  await client.close();
}

// The arguments after this file's path (however it was started: tsx, or a loader in front of it).
main(process.argv.slice(process.argv.findIndex((arg) => arg.endsWith('producer.ts')) + 1)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
