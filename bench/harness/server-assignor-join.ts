/**
 * The `uniform-join` shape of the `server-assignors` section (server-assignors.bench.ts), as a node
 * runs it: the coordinator's own TargetAssignmentBuilder (built, from dist/) calls the assignor with
 * each member's target as the group holds it, and only the members whose target changed get a new
 * one (the records a node writes and applies), so every other member's target list is the very list
 * the previous call was given. A group of 10,000 homogeneous members forms once; then each round one
 * member joins (the timed assignor call) and leaves again (untimed), both through the builder, so a
 * join's input carries the few new lists the previous leave produced, as a node's would.
 */
import { join } from 'node:path';
import type { ConsumerGroupAssignor } from '@cohort/assignors';
import { type AssignorMeasurement, cpuMs, measuredCalls, measurementOf } from './assignor-measurement';

type BuilderModule = typeof import('@cohort/coordinator/consumer/target-assignment-builder');
type MemberModule = typeof import('@cohort/coordinator/consumer/consumer-group-member');
type ConsumerGroupMember = ReturnType<MemberModule['newConsumerGroupMember']>;
type TopicPartitions = ConsumerGroupMember['assignedPartitions'];

/** The coordinator's builder and member constructor from `root`'s dist/ (the code a node runs). */
function coordinator(root: string): { builder: BuilderModule; member: MemberModule } {
  const consumer = join(root, 'dist', 'libs', 'coordinator', 'src', 'consumer');
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    builder: require(join(consumer, 'target-assignment-builder.js')) as BuilderModule,
    member: require(join(consumer, 'consumer-group-member.js')) as MemberModule,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/**
 * `runs` timed joins of one member to a stable group of `members` subscribing to every topic of
 * `partitionsPerTopic`, each followed by its leave; the first join is also the process's first. Then,
 * as Kafka's side settles its JIT, SETTLE_CALLS joins untimed and SETTLED_RUNS_PER_RUN × `runs` timed.
 */
export function measureJoin(
  root: string,
  assignor: ConsumerGroupAssignor,
  members: number,
  partitionsPerTopic: Record<string, number>,
  runs: number,
): AssignorMeasurement {
  const { builder, member } = coordinator(root);
  const topics = new Set(Object.keys(partitionsPerTopic));
  const group = new Map<string, ConsumerGroupMember>();
  for (let m = 0; m < members; m++) {
    const memberId = `member-${String(m).padStart(5, '0')}`;
    group.set(memberId, member.newConsumerGroupMember(memberId, { subscribedTopicNames: topics }));
  }
  const targets = new Map<string, TopicPartitions>();
  let epoch = 0;
  let timed: { wall: number; cpu: number } | null = null;
  const time = <T>(call: () => T): T => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = call();
    timed = { wall: performance.now() - started, cpu: cpuMs(cpu) };
    return result;
  };
  // The call the builder makes: assignTargets when the assignor has it (an older build has only assign).
  const assignTargets = assignor.assignTargets?.bind(assignor);
  const timing: ConsumerGroupAssignor = {
    name: assignor.name,
    assign: (spec, cluster) => time(() => assignor.assign(spec, cluster)),
    ...(assignTargets && { assignTargets: (spec, cluster) => time(() => assignTargets(spec, cluster)) }),
  };
  /** One rebalance as a node does it: the builder's call, then the changed members' new targets applied. */
  const rebalance = (change: { add?: ConsumerGroupMember; remove?: string }): number => {
    const build = new builder.TargetAssignmentBuilder('bench-group', ++epoch, timing)
      .withMembers(group)
      .withTargetAssignment(targets)
      .withSubscriptionMetadata(partitionsPerTopic);
    if (change.add) build.addOrUpdateMember(change.add.memberId, change.add);
    if (change.remove !== undefined) build.removeMember(change.remove);
    const result = build.build(0);
    for (const memberId of result.changed) targets.set(memberId, result.targetAssignment.get(memberId)!);
    if (change.add) group.set(change.add.memberId, change.add);
    if (change.remove !== undefined) {
      group.delete(change.remove);
      targets.delete(change.remove);
    }
    return result.changed.length;
  };
  rebalance({});
  (globalThis as { gc?: () => void }).gc?.();
  const joining = member.newConsumerGroupMember('member-joining', { subscribedTopicNames: topics });
  const walls: number[] = [];
  const cpus: number[] = [];
  let moved = 0;
  const calls = measuredCalls(runs);
  for (let r = 0; r < calls.total; r++) {
    const changed = rebalance({ add: joining });
    const { wall, cpu } = timed as unknown as { wall: number; cpu: number };
    if (calls.timed(r)) {
      walls.push(wall);
      cpus.push(cpu);
    }
    if (r === 0) moved = changed;
    rebalance({ remove: joining.memberId });
  }
  return measurementOf(walls, cpus, runs, moved);
}
