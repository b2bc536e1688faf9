import type { GroupMembersStatus } from './group-members-worker';
import { type MemberStats, noStats } from './harness/bench-member';

// What the large-group bench's members went through, summed over its worker processes and put in words.

/** The members' stats of every worker process, added up (message sizes: the largest). */
export function sumStats(statuses: (GroupMembersStatus | null)[]): MemberStats {
  const total = noStats();
  for (const s of statuses) {
    if (!s) continue;
    total.leaderJoinAnswerBytes = Math.max(total.leaderJoinAnswerBytes, s.stats.leaderJoinAnswerBytes);
    total.leaderSyncRequestBytes = Math.max(total.leaderSyncRequestBytes, s.stats.leaderSyncRequestBytes);
    total.joinTimeouts += s.stats.joinTimeouts;
    total.syncTimeouts += s.stats.syncTimeouts;
    total.heartbeatTimeouts += s.stats.heartbeatTimeouts;
    for (const [key, n] of Object.entries(s.stats.errors)) total.errors[key] = (total.errors[key] ?? 0) + n;
  }
  return total;
}

/** Rebalance reasons with member ids taken out, counted: "3 × removing member on heartbeat expiration". */
export function summarizeReasons(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const reason of reasons) {
    const shape = reason.replace(/[\w.-]+-[0-9a-f]{8}-[0-9a-f-]{27}/g, '<member>').slice(0, 160);
    counts.set(shape, (counts.get(shape) ?? 0) + 1);
  }
  return [...counts].map(([reason, n]) => `${n} × ${reason}`).join(' | ');
}

/** Members' troubles and the leader's message sizes as one short line, for a note or an error message. */
export function statsLine(t: MemberStats): string {
  const errors = Object.entries(t.errors).map(([key, n]) => `${key}: ${n}`);
  const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;
  const sizes = t.leaderJoinAnswerBytes
    ? `leader's JoinGroup answer ${kib(t.leaderJoinAnswerBytes)}, its SyncGroup ${kib(t.leaderSyncRequestBytes)}; `
    : '';
  const parts = [
    t.joinTimeouts && `join timeouts: ${t.joinTimeouts}`,
    t.syncTimeouts && `sync timeouts: ${t.syncTimeouts}`,
    t.heartbeatTimeouts && `heartbeat timeouts: ${t.heartbeatTimeouts}`,
    ...errors,
  ].filter(Boolean);
  return sizes + (parts.length ? parts.join(', ') : 'no timeouts or errors');
}
