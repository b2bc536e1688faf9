import type { PartitionState, ReplicationNode } from '@cohort/replication';
import { type Partition, effectiveMinIsr } from '@cohort/replication/testing';
import type { SimCluster } from './sim-cluster';

/** A committed record as first seen below some replica's HW: the one truth every replica must agree with. */
interface CanonicalRecord {
  key: string;
  value: string | null;
  epoch: number;
}

export interface AckedRecord {
  partition: number;
  offset: number;
  value: string;
}

export interface CheckerOptions {
  /** Unclean elections or beyond-the-model failures are staged: lost acked writes are findings, not bugs. */
  expectDataLoss?: boolean;
  /** Rules not to check (experiments: does a broken rule show up as lost data without its direct check?). */
  skipRules?: string[];
}

/**
 * Checks the invariants of docs/guarantees.md (I1–I27 and the global G1–G6) while a simulation runs.
 * `check()` runs after every step and is incremental: each replica's log is compared with the
 * canonical committed log only from where it was last compared up to its HW; a new leader is compared
 * in full once, when it first leads an epoch. `final()` adds the deep checks after quiescence.
 */
export class InvariantChecker {
  readonly violations: string[] = [];
  private readonly canonical = new Map<number, Map<number, CanonicalRecord>>();
  private readonly checkedUpTo = new Map<string, number>();
  private readonly leaderHw = new Map<string, number>();
  private readonly seenLeaders = new Set<string>();
  private readonly lastStore = new Map<number, PartitionState>();
  private readonly pendingAcks: AckedRecord[] = [];
  readonly acked: AckedRecord[] = [];
  /** Told of each record the first time it is seen committed, in offset order per partition (watchers of the log's content). */
  onCommitted?: (partition: number, offset: number, key: Buffer, value: Buffer | null) => void;

  constructor(
    private readonly sim: SimCluster,
    private readonly options: CheckerOptions = {},
  ) {
    sim.onTruncate = (nodeId, partition, toOffset, hw) => this.onTruncate(nodeId, partition, toOffset, hw);
    sim.onPowerLoss = (nodeId) => this.onPowerLoss(nodeId);
  }

  /** Records an acks=all success (checked against the committed log at the next step). */
  ack(record: AckedRecord): void {
    this.pendingAcks.push(record);
    this.acked.push(record);
  }

  get ok(): boolean {
    return this.violations.length === 0;
  }

  check(): void {
    this.checkStore();
    for (const node of this.sim.upNodes()) {
      for (const p of node.replicas.allPartitions()) this.checkReplica(node, p);
    }
    for (const a of this.pendingAcks.splice(0)) {
      const c = this.canonical.get(a.partition)?.get(a.offset);
      if (!c) this.fail('I11', `acked p${a.partition}@${a.offset}=${a.value} but no replica holds it below its HW`);
      else if (c.value !== a.value)
        this.fail('G1', `acked p${a.partition}@${a.offset}=${a.value} but the committed record there is ${c.value}`);
    }
  }

  /** Deep checks after the cluster has healed and settled. */
  final(): void {
    this.check();
    const states = this.sim.statesNow();
    for (const [partition, state] of states) {
      const replicas = state.replicas
        .map((id) => this.sim.replica(id, partition))
        .filter((r): r is Partition => r !== undefined);
      for (const r of replicas) this.checkEpochCache(r, `node? p${partition}`, true);
      const leader = this.sim.leaderOf(partition)?.replicas.partition(partition);
      if (!leader) continue;
      const leaderLog = recordsOf(leader);
      for (const r of replicas) {
        if (r === leader) continue;
        const mine = recordsOf(r);
        const upTo = Math.min(r.log.logEndOffset, leader.log.logEndOffset);
        for (const [offset, rec] of mine) {
          if (offset >= upTo) continue;
          const theirs = leaderLog.get(offset);
          if (theirs && (theirs.value !== rec.value || theirs.epoch !== rec.epoch)) {
            this.fail(
              'G2',
              `p${partition}@${offset}: follower has ${rec.value}(e${rec.epoch}), leader ${theirs.value}(e${theirs.epoch})`,
            );
          }
        }
      }
      for (const a of this.acked.filter((x) => x.partition === partition)) {
        const rec = leaderLog.get(a.offset);
        if (rec?.value === a.value) continue;
        if (!rec && this.supersededIn(leaderLog, partition, a.offset)) continue;
        this.fail(
          'G1',
          `acked p${partition}@${a.offset}=${a.value} is not in the final leader's log (found ${rec?.value ?? 'nothing'})`,
        );
      }
    }
  }

  private checkStore(): void {
    const config = this.sim.config;
    for (const s of this.sim.statesNow().values()) {
      const prev = this.lastStore.get(s.partition);
      const where = `store p${s.partition}`;
      if (!s.isr.every((m) => s.replicas.includes(m.nodeId))) this.fail('I16', `${where}: ISR not within replicas`);
      if (s.leader !== -1 && !s.isr.some((m) => m.nodeId === s.leader))
        this.fail('I16', `${where}: leader ${s.leader} not in ISR`);
      if (s.isr.length === 0 && !config.eligibleLeaderReplicasEnable)
        this.fail('I22', `${where}: ISR emptied without ELR`);
      if (prev && s.partitionEpoch !== prev.partitionEpoch) {
        if (s.partitionEpoch < prev.partitionEpoch || s.leaderEpoch < prev.leaderEpoch)
          this.fail('I16', `${where}: epochs went backwards`);
        if (s.leader !== prev.leader && s.leaderEpoch === prev.leaderEpoch)
          this.fail('I16', `${where}: leader changed without an epoch bump`);
        const known = [...prev.isr, ...prev.elr].map((m) => m.nodeId);
        const byOperator = this.sim.adminElections.has(`${s.partition}:${s.partitionEpoch}`);
        if (s.leader !== -1 && s.leader !== prev.leader && !known.includes(s.leader) && !byOperator) {
          if (!config.uncleanLeaderElectionEnable)
            this.fail('I22', `${where}: ${s.leader} elected from outside ISR/ELR with unclean election disabled`);
          else if (s.isr.length !== 1 || s.leaderRecoveryState !== 'RECOVERING')
            this.fail('I22', `${where}: unclean election without ISR={leader}, RECOVERING`);
        }
      }
      if (prev && s.partitionEpoch !== prev.partitionEpoch && s.leaderEpoch === prev.leaderEpoch)
        this.checkExpansion(prev, s);
      this.lastStore.set(s.partition, s);
    }
  }

  /**
   * I18: a follower the leader adds to the ISR has reached the HW and the start of the leader's epoch
   * (KAFKA-7128) — checked against the leader's own view when the controller commits the expansion.
   */
  private checkExpansion(prev: PartitionState, next: PartitionState): void {
    const leader = this.sim.replica(next.leader, next.partition);
    if (!leader || leader.role !== 'leader' || leader.leaderEpoch !== next.leaderEpoch) return;
    for (const m of next.isr) {
      if (prev.isr.some((x) => x.nodeId === m.nodeId)) continue;
      const remote = leader.remotes.get(m.nodeId);
      if (!remote || remote.leo < leader.leaderEpochStartOffset) {
        this.fail(
          'I18',
          `p${next.partition}: node ${m.nodeId} joined the ISR at LEO ${remote?.leo} below the epoch start ${leader.leaderEpochStartOffset}`,
        );
      }
    }
  }

  private checkReplica(node: ReplicationNode, p: Partition): void {
    const where = `node ${node.id} p${p.partition}`;
    const key = `${node.id}:${p.partition}`;
    const log = p.log;
    if (!(log.logStartOffset <= p.hw && p.hw <= log.logEndOffset))
      this.fail('I8', `${where}: HW ${p.hw} outside [${log.logStartOffset}, ${log.logEndOffset}]`);
    this.checkEpochCache(p, where, false);
    const checked = this.checkedUpTo.get(key) ?? 0;
    if (log.logEndOffset < checked) {
      this.fail('I15', `${where}: log shrank below ${checked} without a truncation or power cut`);
      this.checkedUpTo.set(key, log.logEndOffset);
    }
    if (p.role === 'leader') this.checkLeader(node, p, where);
    this.compareWithCanonical(p, key, where);
  }

  private checkLeader(node: ReplicationNode, p: Partition, where: string): void {
    const lk = `${node.id}:${p.partition}:${p.leaderEpoch}`;
    if (!this.seenLeaders.has(lk)) {
      this.seenLeaders.add(lk);
      const latest = p.epochCache.latestEntry();
      if (!latest || latest.epoch !== p.leaderEpoch || latest.startOffset > p.leaderEpochStartOffset) {
        this.fail(
          'I6',
          `${where}: leader of epoch ${p.leaderEpoch} (start ${p.leaderEpochStartOffset}) has epoch cache ${JSON.stringify(latest)}`,
        );
      }
      this.checkHoldsCommitted(p, where);
    }
    const prevHw = this.leaderHw.get(lk);
    if (prevHw !== undefined && p.hw < prevHw)
      this.fail('G3', `${where}: HW went down ${prevHw} → ${p.hw} in epoch ${p.leaderEpoch}`);
    if (prevHw !== undefined && p.hw > prevHw && p.isr.length < effectiveMinIsr(this.sim.config, p.replicas.length)) {
      this.fail('I10', `${where}: HW rose to ${p.hw} with committed ISR ${p.isr.map((m) => m.nodeId)}`);
    }
    this.leaderHw.set(lk, p.hw);
    if (!p.isr.some((m) => m.nodeId === node.id)) this.fail('I16', `${where}: leader not in its own ISR view`);
  }

  /** I12: a new leader's log holds every committed record (or a later record of the same key, after compaction). */
  private checkHoldsCommitted(p: Partition, where: string): void {
    const committed = this.canonical.get(p.partition);
    if (!committed || committed.size === 0) return;
    const mine = recordsOf(p);
    for (const [offset, c] of committed) {
      const rec = mine.get(offset);
      if (rec && rec.value === c.value) continue;
      if (!rec && this.supersededIn(mine, p.partition, offset)) continue;
      this.fail(
        this.options.expectDataLoss ? 'G1(expected)' : 'I12',
        `${where}: new leader lacks committed @${offset}=${c.value} (has ${rec?.value ?? 'nothing'})`,
      );
      return;
    }
  }

  /**
   * The record at `offset` may be gone by compaction only if the same key was committed again later,
   * or if it is a tombstone (removed once its retention has passed).
   */
  private supersededIn(_log: Map<number, CanonicalRecord>, partition: number, offset: number): boolean {
    const committed = this.canonical.get(partition);
    const c = committed?.get(offset);
    if (!c) return false;
    if (c.value === null) return true;
    for (const [o, r] of committed!) if (o > offset && r.key === c.key) return true;
    return false;
  }

  private compareWithCanonical(p: Partition, key: string, where: string): void {
    const from = this.checkedUpTo.get(key) ?? 0;
    if (from >= p.hw) return;
    let committed = this.canonical.get(p.partition);
    if (!committed) this.canonical.set(p.partition, (committed = new Map()));
    let lastEpoch = -1;
    for (const batch of p.log.read(from, p.hw, Number.MAX_SAFE_INTEGER)) {
      if (batch.leaderEpoch < lastEpoch) this.fail('I2', `${where}: epochs decrease at ${batch.baseOffset}`);
      lastEpoch = batch.leaderEpoch;
      const cacheEpoch = p.epochCache.epochAt(batch.records[0].offset);
      if (cacheEpoch !== batch.leaderEpoch)
        this.fail(
          'G6',
          `${where}: batch at ${batch.baseOffset} has epoch ${batch.leaderEpoch}, cache says ${cacheEpoch}`,
        );
      for (const r of batch.records) {
        if (r.offset < from || r.offset >= p.hw) continue;
        const rec = {
          key: r.key.toString(),
          value: r.value === null ? null : r.value.toString(),
          epoch: r.leaderEpoch,
        };
        const c = committed.get(r.offset);
        if (!c) {
          committed.set(r.offset, rec);
          this.onCommitted?.(p.partition, r.offset, r.key, r.value);
        } else if (c.value !== rec.value || c.epoch !== rec.epoch) {
          this.fail(
            this.options.expectDataLoss ? 'G5(expected)' : 'G5',
            `${where}: committed @${r.offset} is ${rec.value}(e${rec.epoch}) here but ${c.value}(e${c.epoch}) elsewhere`,
          );
        }
      }
    }
    this.checkedUpTo.set(key, p.hw);
  }

  private checkEpochCache(p: Partition, where: string, deep: boolean): void {
    const entries = p.epochCache.list();
    for (let i = 1; i < entries.length; i++) {
      if (entries[i].epoch <= entries[i - 1].epoch || entries[i].startOffset <= entries[i - 1].startOffset) {
        this.fail('I3', `${where}: epoch cache not strictly increasing: ${JSON.stringify(entries)}`);
        return;
      }
    }
    const last = entries[entries.length - 1];
    if (last && last.startOffset > p.log.logEndOffset)
      this.fail('I3', `${where}: epoch entry ${JSON.stringify(last)} beyond LEO ${p.log.logEndOffset}`);
    if (!deep) return;
    for (const b of p.log.read(0, p.log.logEndOffset, Number.MAX_SAFE_INTEGER)) {
      if (p.epochCache.epochAt(b.records[0].offset) !== b.leaderEpoch) {
        this.fail(
          'G6',
          `${where}: batch at ${b.baseOffset} epoch ${b.leaderEpoch} vs cache ${JSON.stringify(entries)}`,
        );
        return;
      }
    }
  }

  /** A power cut: the node's logs lost their unflushed tails; compare again from what is left. */
  private onPowerLoss(nodeId: number): void {
    for (const key of [...this.checkedUpTo.keys()].filter((k) => k.startsWith(`${nodeId}:`))) {
      const partition = Number(key.split(':')[1]);
      const leo = this.sim.disks.get(nodeId)!.logs.get(partition)?.logEndOffset ?? 0;
      this.checkedUpTo.set(key, Math.min(this.checkedUpTo.get(key) ?? 0, leo));
    }
  }

  private onTruncate(nodeId: number, partition: number, toOffset: number, hw: number): void {
    const key = `${nodeId}:${partition}`;
    this.checkedUpTo.set(key, Math.min(this.checkedUpTo.get(key) ?? 0, toOffset));
    const p = this.sim.replica(nodeId, partition);
    if (p?.role === 'leader')
      this.fail('I5', `node ${nodeId} p${partition}: leader truncates its own log to ${toOffset}`);
    if (toOffset < hw && !this.options.expectDataLoss && !this.sim.config.uncleanLeaderElectionEnable) {
      this.fail('I15', `node ${nodeId} p${partition}: truncation to ${toOffset} below HW ${hw}`);
    }
  }

  private fail(rule: string, message: string): void {
    if (this.options.skipRules?.includes(rule)) return;
    if (this.violations.length < 50)
      this.violations.push(`[${rule}] t=${this.sim.clock.now() - 1_700_000_000_000}ms ${message}`);
    this.sim.trace.add(this.sim.clock.now(), `VIOLATION [${rule}] ${message}`);
  }
}

/** A replica's records by offset. */
function recordsOf(p: Partition): Map<number, CanonicalRecord> {
  const out = new Map<number, CanonicalRecord>();
  for (const b of p.log.read(0, p.log.logEndOffset, Number.MAX_SAFE_INTEGER)) {
    for (const r of b.records)
      out.set(r.offset, {
        key: r.key.toString(),
        value: r.value === null ? null : r.value.toString(),
        epoch: r.leaderEpoch,
      });
  }
  return out;
}
