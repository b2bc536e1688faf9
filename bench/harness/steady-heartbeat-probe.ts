import { partitionFor } from '@cohort/protocol';
import { ConsumerFleet } from './consumer-fleet';
import type { ConsumerMember } from './consumer-member';
import { median } from './stats';

/** The coordinator's partitions of `__consumer_offsets` (SPEC: abs(javaHash(groupId)) % 50). */
const OFFSETS_PARTITIONS = 50;

/**
 * A stable member of another consumer group on the same coordinator shard as `groupId` that sends
 * steady heartbeats back to back while a measure runs, and the round trips they took: what a group
 * sharing the shard with a busy one notices (a member at its target heartbeating on its interval, each
 * answer late by as much). Its group is on the same shard on purpose: a group of another shard has a
 * queue of its own and never waits for this one.
 */
export class SteadyHeartbeatProbe {
  private running = false;
  private rounds: number[] = [];
  private loop: Promise<void> = Promise.resolve();

  private constructor(
    private readonly fleet: ConsumerFleet,
    private readonly member: ConsumerMember,
  ) {}

  /** Creates the probe's group (one topic of one partition) and waits until its member is stable. */
  static async start(
    node: { url: string; post: (path: string, body: unknown) => Promise<unknown> },
    groupId: string,
  ): Promise<SteadyHeartbeatProbe> {
    const probeGroup = groupOnShardOf(groupId);
    await node.post('/v1/topics', { name: probeGroup, partitions: 1 });
    const fleet = new ConsumerFleet(node.url, probeGroup, {
      topic: probeGroup,
      followPushes: true,
      rebalanceTimeoutMs: 60_000,
    });
    const [member] = await fleet.connect(1);
    await fleet.converge(1, 0, 30_000, () => member.start());
    // Its interval's heartbeats stop: the probe sends them, back to back.
    member.pause();
    return new SteadyHeartbeatProbe(fleet, member);
  }

  /** Heartbeats back to back from now until `stop`, each round trip kept. */
  begin(): void {
    this.running = true;
    this.rounds = [];
    this.loop = (async () => {
      while (this.running) {
        const started = performance.now();
        const answer = await this.member.steadyHeartbeat();
        if (answer.errorCode !== 0) throw new Error(`the probe's heartbeat failed: error ${answer.errorCode}`);
        this.rounds.push(performance.now() - started);
      }
    })();
  }

  /** Stops and resolves with the round trips' worst and median since `begin`. */
  async stop(): Promise<{ worstMs: number; medianMs: number; count: number }> {
    this.running = false;
    await this.loop;
    return { worstMs: Math.max(0, ...this.rounds), medianMs: median(this.rounds), count: this.rounds.length };
  }

  async leave(): Promise<void> {
    this.running = false;
    await this.loop.catch(() => undefined);
    await this.fleet.leave();
  }
}

/** A group id whose coordinator partition is `groupId`'s. */
function groupOnShardOf(groupId: string): string {
  const partition = partitionFor(groupId, OFFSETS_PARTITIONS);
  for (let i = 0; ; i++)
    if (partitionFor(`${groupId}-probe-${i}`, OFFSETS_PARTITIONS) === partition) return `${groupId}-probe-${i}`;
}
