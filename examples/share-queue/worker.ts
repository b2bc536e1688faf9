/**
 * A worker of the share group: leases jobs from Cohort, reads them from the job file, does them and
 * acknowledges each one — accepted when done, rejected when it can never be done (a dead letter), a
 * gap where the file has no job. Start as many as you like; they share the work, and a job a worker
 * dropped (Ctrl-C mid-lease, a crash) comes back to another one. Run it with a node running:
 *
 *   npx tsx examples/share-queue/worker.ts
 *
 * Environment: COHORT_URL, GROUP_ID (default share-queue), TOPIC (default jobs), JOBS_FILE, WORK_MS
 * (how long a job takes, default 200), EXIT_WHEN_IDLE_MS (leave once no job came for that long).
 */
import { CohortClient } from '@cohort/client';
import { readJobs } from './job-store';

const name = `worker-${process.pid}`;
const workMs = Number(process.env.WORK_MS ?? 200);
const idleExitMs = process.env.EXIT_WHEN_IDLE_MS ? Number(process.env.EXIT_WHEN_IDLE_MS) : null;

async function main(): Promise<void> {
  const client = new CohortClient({
    urls: (process.env.COHORT_URL ?? 'http://localhost:3000').split(','),
    clientId: name,
  });
  const member = client.shareMember({
    groupId: process.env.GROUP_ID ?? 'share-queue',
    topics: [process.env.TOPIC ?? 'jobs'],
    maxRecords: 5,
    acknowledgement: 'explicit',
    maxWaitMs: 1000,
  });
  member.on('lost', ({ leases, reason }) =>
    console.log(`lost ${leases.map((l) => `${l.firstOffset}..${l.lastOffset}`).join(' ')}: ${reason}`),
  );
  member.on('error', (error) => console.warn(`retrying after ${error.name}: ${error.message}`));
  member.on('crash', (error) => {
    console.error(`stopped: ${error.name}: ${error.message}`);
    process.exit(1);
  });
  let idle: NodeJS.Timeout | null = null;
  const stop = async (): Promise<void> => {
    await client.close(); // releases what is still held (it goes to another worker at once) and leaves
    console.log(`${name} left the group`);
  };
  const idleTimer = (): void => {
    if (idle) clearTimeout(idle);
    if (idleExitMs !== null) idle = setTimeout(() => void stop(), idleExitMs);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());

  await member.start();
  console.log(`${name} joined as ${member.memberId}`);
  idleTimer();
  for await (const lease of member.leases()) {
    idleTimer();
    const jobs = readJobs();
    for (let offset = lease.firstOffset; offset <= lease.lastOffset; offset++) {
      const job = jobs[offset];
      const at = { topic: lease.topic, partition: lease.partition, offset };
      if (!job) {
        member.acknowledge({ ...at, type: 'gap' });
      } else if (job.poison) {
        console.log(`rejected job ${job.id} (offset ${offset}, delivery ${lease.deliveryCount}) by ${name}`);
        member.acknowledge({ ...at, type: 'reject' });
      } else {
        await new Promise((resolve) => setTimeout(resolve, workMs)); // the work
        console.log(
          `done job ${job.id} "${[...job.text].reverse().join('')}" (offset ${offset}, delivery ${lease.deliveryCount}) by ${name}`,
        );
        member.acknowledge({ ...at, type: 'accept' });
      }
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
