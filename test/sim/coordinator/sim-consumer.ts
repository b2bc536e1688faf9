import type { GroupCoordinator } from '@cohort/coordinator';
import { ErrorCode } from '@cohort/protocol';
import type { SeededRandom } from '@cohort/replication';
import type { SimCluster } from '../sim-cluster';
import type { CommitLedger } from './commit-ledger';
import type { CallOutcome, SimCoordinators } from './sim-coordinators';

const TOPIC = 'orders';
const PARTITIONS = [0, 1, 2, 3];
const REJOIN = new Set<number>([
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.FENCED_INSTANCE_ID,
]);

/**
 * A one-member consumer group as a client drives it: FindCoordinator (from the metadata), JoinGroup
 * (with the KIP-394 member-id round), SyncGroup as leader, then OffsetCommits of ever larger offsets
 * and heartbeats, rejoining or rediscovering on errors the way Kafka's client does.
 */
export class SimConsumer {
  private memberId = '';
  private generation = -1;
  private stable = false;
  private nextOffset = 1;
  private lastHeartbeat = 0;
  private stopped = false;

  constructor(
    readonly groupId: string,
    private readonly sim: SimCluster,
    private readonly coordinators: SimCoordinators,
    private readonly ledger: CommitLedger,
    private readonly rng: SeededRandom,
  ) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (!this.stable) await this.join();
      else if (this.sim.clock.now() - this.lastHeartbeat > 1_000) await this.heartbeat();
      else await this.commit();
      await new Promise<void>((resolve) => this.sim.clock.schedule(20 + this.rng.int(60), resolve));
    }
  }

  /** Sends to the group's coordinator as the metadata names it, counting the "not here yet" answers. */
  private async send<R extends { errorCode: number }>(
    request: (c: GroupCoordinator) => Promise<R>,
  ): Promise<CallOutcome<R>> {
    const outcome = await this.coordinators.call(this.coordinators.coordinatorNodeFor(this.groupId), request, 10_000);
    if (outcome.ok && outcome.value.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
      this.ledger.loadInProgressAnswers++;
    if (outcome.ok && outcome.value.errorCode === ErrorCode.NOT_COORDINATOR) this.ledger.notCoordinatorAnswers++;
    return outcome;
  }

  private context() {
    return { clientId: this.groupId, clientHost: 'sim', connectionId: `${this.groupId}-conn` };
  }

  private async join(): Promise<void> {
    const joined = await this.send((c) =>
      c.joinGroup(
        {
          groupId: this.groupId,
          sessionTimeoutMs: 30_000,
          rebalanceTimeoutMs: 10_000,
          memberId: this.memberId,
          protocolType: 'consumer',
          protocols: [{ name: 'range', metadata: { topics: [TOPIC] } }],
        },
        this.context(),
      ),
    );
    if (!joined.ok) return;
    const r = joined.value;
    if (r.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
      this.memberId = r.memberId;
      return;
    }
    if (r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
    if (r.errorCode !== ErrorCode.NONE) return;
    this.memberId = r.memberId;
    this.generation = r.generationId;
    const assignment = { partitions: [{ topic: TOPIC, partitions: PARTITIONS }] };
    const synced = await this.send((c) =>
      c.syncGroup(
        {
          groupId: this.groupId,
          generationId: this.generation,
          memberId: this.memberId,
          protocolType: 'consumer',
          protocolName: 'range',
          assignments: r.leader === this.memberId ? [{ memberId: this.memberId, assignment }] : [],
        },
        this.context(),
      ),
    );
    if (synced.ok && synced.value.errorCode === ErrorCode.NONE) {
      this.stable = true;
      this.lastHeartbeat = this.sim.clock.now();
      this.ledger.syncAcked(this.groupId, this.generation, synced.value.assignment);
    }
  }

  private async heartbeat(): Promise<void> {
    this.lastHeartbeat = this.sim.clock.now();
    const r = await this.send((c) =>
      c.heartbeat({ groupId: this.groupId, generationId: this.generation, memberId: this.memberId }, this.context()),
    );
    if (r.ok && REJOIN.has(r.value.errorCode)) this.stable = false;
  }

  private async commit(): Promise<void> {
    const offset = this.nextOffset++;
    for (const p of PARTITIONS) this.ledger.attempt(this.groupId, p, offset);
    const r = await this.send((c) =>
      c.offsetCommit(
        {
          groupId: this.groupId,
          generationId: this.generation,
          memberId: this.memberId,
          topics: [
            {
              name: TOPIC,
              partitions: PARTITIONS.map((partitionIndex) => ({ partitionIndex, committedOffset: offset })),
            },
          ],
        },
        this.context(),
      ),
    );
    if (!r.ok) return;
    for (const t of r.value.topics ?? []) {
      for (const p of t.partitions) {
        if (p.errorCode === ErrorCode.NONE) this.ledger.acked(this.groupId, p.partitionIndex, offset);
        else if (REJOIN.has(p.errorCode)) this.stable = false;
      }
    }
  }
}
