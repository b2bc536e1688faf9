import type { Timers } from './timers';

export interface RetryOptions {
  /** First wait, in ms (default 100, Kafka's retry.backoff.ms). */
  initialMs?: number;
  /** Longest wait, in ms (default 1000, Kafka's retry.backoff.max.ms). */
  maxMs?: number;
  /** Growth per attempt (default 2). */
  multiplier?: number;
  /** Relative randomisation, 0..1 (default 0.2: ±20 %, as KIP-580). */
  jitter?: number;
}

export type ResolvedRetry = Required<RetryOptions>;

export const DEFAULT_RETRY: ResolvedRetry = { initialMs: 100, maxMs: 1000, multiplier: 2, jitter: 0.2 };

export function resolveRetry(options: RetryOptions = {}): ResolvedRetry {
  const retry = { ...DEFAULT_RETRY, ...stripUndefined(options) };
  const bad = (Object.keys(DEFAULT_RETRY) as (keyof ResolvedRetry)[]).filter(
    (key) => !Number.isFinite(retry[key]) || retry[key] < 0,
  );
  if (bad.length > 0 || retry.multiplier < 1 || retry.jitter > 1) {
    throw new RangeError(
      `retry options must be finite, non-negative numbers with multiplier >= 1 and jitter <= 1 (got ${JSON.stringify(options)})`,
    );
  }
  return retry;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Kafka's ExponentialBackoff (KIP-580): `min(max, initial · multiplier^attempt) · U(1 − jitter, 1 + jitter)`,
 * never above `max`. One instance per retried operation; `reset()` after a success.
 */
export class Backoff {
  private attempts = 0;

  constructor(
    private readonly retry: ResolvedRetry,
    private readonly timers: Pick<Timers, 'random'>,
  ) {}

  /** The wait before the next attempt; counts the attempt. */
  next(): number {
    const { initialMs, maxMs, multiplier, jitter } = this.retry;
    if (initialMs >= maxMs) return maxMs;
    const base = Math.min(maxMs, initialMs * multiplier ** this.attempts);
    this.attempts = Math.min(this.attempts + 1, 64);
    const factor = 1 - jitter + 2 * jitter * this.timers.random();
    return Math.min(maxMs, Math.round(base * factor));
  }

  reset(): void {
    this.attempts = 0;
  }
}
