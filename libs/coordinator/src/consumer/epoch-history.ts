/**
 * Why a consumer group's epoch moved (docs/rest.md, the `rebalances` of a consumer group): a member
 * joined, left (a leave heartbeat), was fenced (its session or rebalance timeout), changed what it
 * subscribes to, or a subscribed topic was created, grew or went away. One word each, so the metric of
 * epoch bumps has a small, fixed label set.
 */
export const EPOCH_BUMP_REASONS = [
  'member-joined',
  'member-left',
  'member-fenced',
  'subscription-changed',
  'topic-metadata-changed',
] as const;

export type EpochBumpReason = (typeof EPOCH_BUMP_REASONS)[number];

/** What caused one bump, as the manager knows it when it writes the epoch record. */
export interface EpochBumpCause {
  reason: EpochBumpReason;
  /** The member whose change it was; null for a topic change. */
  memberId: string | null;
}

/** One group epoch bump and when every member held its target at that epoch (or a later one). */
export interface EpochBump extends EpochBumpCause {
  groupEpoch: number;
  /** Epoch ms: the timestamp of the epoch record. */
  startedAt: number;
  /** Epoch ms when the group was next Stable (or Empty); null while it is not, or if a later bump came first. */
  completedAt: number | null;
  /** Members right after the bump. */
  members: number;
}

/**
 * The last group epoch bumps of a consumer group, oldest first, with how long each took to converge
 * (the consumer-group counterpart of the classic `RebalanceHistory`). It changes only by replaying an
 * epoch record, which carries the whole list as it stands after the record: the manager computes the
 * next list (`withBump`, `withConvergence`) and writes it, so a coordinator that loads the partition,
 * even after compaction kept only the last epoch record, shows the history the old one showed. The
 * list is never changed in place, so `entries` is a snapshot a failed write can put back.
 */
export class EpochHistory {
  private list: readonly EpochBump[] = [];

  constructor(private readonly capacity: number) {}

  get entries(): readonly EpochBump[] {
    return this.list;
  }

  /** A replayed record's list, or a snapshot taken from `entries` (a write taken back). */
  restore(entries: readonly EpochBump[]): void {
    this.list = entries.length > this.capacity ? entries.slice(-this.capacity) : entries;
  }

  /** The list with a new bump. A bump still open stays open: it never converged, this one superseded it. */
  withBump(bump: EpochBump): EpochBump[] {
    // Built at its final length in one array (every join of a burst makes one): the newest bumps that fit, then this one.
    if (this.capacity <= 0) return [];
    const list = this.list;
    const kept = Math.min(list.length, this.capacity - 1);
    const next = new Array<EpochBump>(kept + 1);
    for (let i = 0; i < kept; i++) next[i] = list[list.length - kept + i];
    next[kept] = bump;
    return next;
  }

  /**
   * The group is Stable at `assignmentEpoch` (or Empty) at `at`: the list with its newest bump closed,
   * when that bump is open and not newer than `assignmentEpoch`; undefined when nothing changes.
   */
  withConvergence(assignmentEpoch: number, empty: boolean, at: number): EpochBump[] | undefined {
    const last = this.list[this.list.length - 1];
    if (!last || last.completedAt !== null || (!empty && last.groupEpoch > assignmentEpoch)) return undefined;
    return [...this.list.slice(0, -1), { ...last, completedAt: Math.max(at, last.startedAt) }];
  }
}

/** A bump as REST shows it: its duration, and whether it converged, is still converging or was superseded. */
export interface EpochBumpView extends EpochBump {
  durationMs: number | null;
  outcome: 'converged' | 'converging' | 'superseded';
}

/** Newest first, as the classic history lists. */
export function epochHistoryView(entries: readonly EpochBump[]): EpochBumpView[] {
  return entries
    .map((e, i) => ({
      ...e,
      durationMs: e.completedAt === null ? null : e.completedAt - e.startedAt,
      outcome:
        e.completedAt !== null
          ? ('converged' as const)
          : i === entries.length - 1
            ? ('converging' as const)
            : ('superseded' as const),
    }))
    .reverse();
}

/**
 * The history in an epoch record: one compact array per bump (`[epoch, reason, memberId, startedAt,
 * completedAt, members]`), since every epoch record of the group carries the whole list.
 */
export type PersistedBump = [number, string, string | null, number, number | null, number];

export function persistBumps(entries: readonly EpochBump[]): PersistedBump[] {
  return entries.map(persistBump);
}

function persistBump(e: EpochBump): PersistedBump {
  return [e.groupEpoch, e.reason, e.memberId, e.startedAt, e.completedAt, e.members];
}

/** Each bump's JSON, kept as long as the bump: bumps are never changed in place (a closed one is a new object). */
const bumpJson = new WeakMap<EpochBump, string>();

/**
 * `JSON.stringify(persistBumps(entries))`, each bump stringified once: every epoch record of a group
 * carries the whole list, so a burst of joins, one bump each, stringified every older bump again per
 * join (a group forming from empty: 20 bumps per join, most of the cost of its epoch records).
 */
export function bumpsJson(entries: readonly EpochBump[]): string {
  const parts: string[] = [];
  for (const e of entries) {
    let json = bumpJson.get(e);
    if (json === undefined) bumpJson.set(e, (json = JSON.stringify(persistBump(e))));
    parts.push(json);
  }
  return `[${parts.join(',')}]`;
}

/** An entry that does not decode is dropped: the history is for operators, never worth a lost group. */
export function restoreBumps(raw: unknown): EpochBump[] {
  if (!Array.isArray(raw)) return [];
  const out: EpochBump[] = [];
  for (const entry of raw) {
    if (!Array.isArray(entry) || entry.length !== 6) continue;
    const [groupEpoch, reason, memberId, startedAt, completedAt, members] = entry as unknown[];
    if (
      Number.isInteger(groupEpoch) &&
      isReason(reason) &&
      (memberId === null || typeof memberId === 'string') &&
      Number.isFinite(startedAt) &&
      (completedAt === null || Number.isFinite(completedAt)) &&
      Number.isInteger(members)
    ) {
      out.push({
        groupEpoch: groupEpoch as number,
        reason,
        memberId: memberId as string | null,
        startedAt: startedAt as number,
        completedAt: completedAt as number | null,
        members: members as number,
      });
    }
  }
  return out;
}

export function isReason(value: unknown): value is EpochBumpReason {
  return typeof value === 'string' && (EPOCH_BUMP_REASONS as readonly string[]).includes(value);
}
