/**
 * A complete consumer on @cohort/client: joins `GROUP_ID`, processes the partitions it owns (here a
 * stand-in that "processes" one record per partition per second), commits as it goes and leaves
 * cleanly on Ctrl-C or SIGTERM. Run it from the repository root with a node running:
 *
 *   npx tsx examples/node-consumer/consumer.ts
 *
 * Environment: COHORT_URL (default http://localhost:3000, comma-separated for several nodes),
 * GROUP_ID (default example-group), TOPIC (default orders), INSTANCE_ID (set it for a static member).
 */
import { CohortClient, type TopicPartitions } from '@cohort/client';

const urls = (process.env.COHORT_URL ?? 'http://localhost:3000').split(',');
const groupId = process.env.GROUP_ID ?? 'example-group';
const topic = process.env.TOPIC ?? 'orders';
const instanceId = process.env.INSTANCE_ID;

const describe = (partitions: TopicPartitions[]): string =>
  partitions.map((tp) => `${tp.topic}[${tp.partitions.join(',')}]`).join(' ') || 'nothing';

async function main(): Promise<void> {
  const client = new CohortClient({ urls, clientId: `example-consumer-${process.pid}` });
  const admin = client.admin();
  // The topic must be in the registry before members can be given its partitions.
  await admin.describeTopic(topic).catch(async () => admin.createTopic(topic, 6));

  const member = client.member({
    groupId,
    topics: [topic],
    ...(instanceId ? { groupInstanceId: instanceId, sessionTimeoutMs: 30_000 } : {}),
  });
  /** Next offset to process per partition: where the group committed, then our own progress. */
  const next = new Map<string, number>();

  member.on('joined', (e) =>
    console.log(
      `joined generation ${e.generationId} as ${e.memberId}${e.leader ? ' (leader)' : ''}, protocol ${e.protocol}`,
    ),
  );
  member.on('assigned', async ({ partitions, generationId }) => {
    for (const { topic: t, partition, offset } of await member.committed(partitions))
      next.set(`${t}-${partition}`, offset ?? 0);
    console.log(`generation ${generationId}: +${describe(partitions)}; now own ${describe(member.assignment)}`);
  });
  member.on('revoked', ({ partitions }) =>
    console.log(`giving up ${describe(partitions)} (marked offsets are committed first)`),
  );
  member.on('lost', ({ partitions, reason }) => console.log(`lost ${describe(partitions)}: ${reason}`));
  member.on('committed', ({ offsets }) =>
    console.log(`committed ${offsets.map((o) => `${o.topic}-${o.partition}@${o.offset}`).join(' ')}`),
  );
  member.on('error', (error) => console.warn(`retrying after ${error.name}: ${error.message}`));
  member.on('crash', (error) => {
    console.error(`stopped: ${error.name}: ${error.message}`);
    process.exit(1);
  });

  await member.start();
  const work = setInterval(() => {
    for (const { topic: t, partitions } of member.assignment) {
      for (const partition of partitions) {
        const offset = (next.get(`${t}-${partition}`) ?? 0) + 1;
        next.set(`${t}-${partition}`, offset);
        member.markProcessed({ topic: t, partition, offset });
      }
    }
  }, 1000);

  const shutdown = async (): Promise<void> => {
    clearInterval(work);
    await client.close(); // commits the marked offsets, revokes, leaves the group (dynamic members)
    console.log('left the group');
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
