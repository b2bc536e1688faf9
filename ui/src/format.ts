/** How numbers, times and assignments read on every page. */

const numbers = new Intl.NumberFormat('en-US');

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : numbers.format(value);
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/**
 * A time lag (docs/lag.md): "0 s" when caught up, then seconds, minutes, hours and days, two units at most;
 * "—" when unknown (no end offset reported).
 */
export function formatTimeLag(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 10_000) return `${Number((ms / 1000).toFixed(1))} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** "12 s ago", for timestamps of the last hours; older ones as a date. */
export function formatAgo(timestamp: number | null | undefined, now: number): string {
  if (!timestamp) return '—';
  const ms = Math.max(0, now - timestamp);
  if (ms < 1000) return 'just now';
  if (ms < 60_000) return `${Math.floor(ms / 1000)} s ago`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ago`;
  return new Date(timestamp).toISOString().slice(0, 10);
}

export function formatClock(timestamp: number | null | undefined): string {
  return timestamp ? new Date(timestamp).toLocaleTimeString('en-GB', { hour12: false }) : '—';
}

/** Partition numbers as ranges: [0,1,2,5] → "0-2, 5". */
export function formatPartitions(partitions: readonly number[]): string {
  const sorted = [...partitions].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]));
    i = j;
  }
  return parts.join(', ');
}

/** A `consumer` member's assignment, `[{ topic, partitions }]` inside `{ partitions }`; null for other protocols. */
export function assignedPartitions(assignment: unknown): { topic: string; partitions: number[] }[] | null {
  const list = (assignment as { partitions?: unknown } | null)?.partitions;
  if (!Array.isArray(list)) return null;
  return list.filter(
    (entry): entry is { topic: string; partitions: number[] } =>
      typeof entry?.topic === 'string' && Array.isArray(entry?.partitions),
  );
}

export function subscribedTopics(subscription: unknown): string[] | null {
  const topics = (subscription as { topics?: unknown } | null)?.topics;
  return Array.isArray(topics) ? topics.filter((t): t is string => typeof t === 'string') : null;
}
