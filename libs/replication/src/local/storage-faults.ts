import { statfs } from 'node:fs/promises';
import { KafkaError } from '@cohort/protocol';
import type { Clock, TimerHandle } from '../time/clock';

/** What a storage fault looks like from outside: for the log line, readiness and the metrics. */
export interface StorageFaultInfo {
  /** What clients are answered (KAFKA_STORAGE_ERROR) while it lasts. */
  error: KafkaError;
  /** The I/O error's code when it had one (`ENOSPC`, `EIO`, `EROFS`...). */
  code: string | undefined;
  /** What failed first, e.g. `the journal in <dir> failed: ENOSPC: no space left on device, write`. */
  cause: string;
  /** When it started (clock time). */
  since: number;
}

export interface StorageFaultEvents {
  /** Writes started failing: once per fault, however many writes fail. */
  onStorageFault?(fault: StorageFaultInfo): void;
  /** Writes work again: how long they were refused and how many attempts it took. */
  onStorageHealed?(fault: StorageFaultInfo, downMs: number, attempts: number): void;
}

/** First retry after a fault, doubled after each failed attempt up to the maximum (Kafka's retry.backoff.ms, retry.backoff.max.ms). */
export const STORAGE_RETRY_INITIAL_MS = 250;
export const STORAGE_RETRY_MAX_MS = 5_000;
/** After ENOSPC, an attempt waits until the file system has this much free: not a few bytes that would fail again at once. */
export const STORAGE_HEADROOM_BYTES = 1024 * 1024;

/**
 * The storage fault of one DATA_DIR: set by the first failed write, it makes the store refuse writes
 * (KAFKA_STORAGE_ERROR) while reads go on, and tries to heal on a bounded backoff (250 ms doubling to
 * 5 s) until `heal` succeeds. Once the storage takes writes again, so does the store: no restart.
 */
export class StorageFaults {
  private fault: StorageFaultInfo | undefined;
  private attempts = 0;
  private timer: TimerHandle | undefined;
  private closed = false;

  constructor(
    private readonly dataDir: string,
    private readonly clock: Clock,
    /** Makes the store writable again (rewrites what failed, drops what was refused); rejects while the storage still fails. */
    private readonly heal: () => Promise<void>,
    private readonly events: StorageFaultEvents,
  ) {}

  /** The error writes are refused with, while the storage is failed. */
  get current(): KafkaError | undefined {
    return this.fault?.error;
  }

  get info(): StorageFaultInfo | undefined {
    return this.fault;
  }

  /** A write failed with `error` (from `cause`). Returns the fault when this starts one, undefined when one is on. */
  enter(error: KafkaError, cause: unknown): StorageFaultInfo | undefined {
    if (this.fault || this.closed) return undefined;
    const code = errnoCode(cause);
    this.fault = {
      error: KafkaError.of(
        'KAFKA_STORAGE_ERROR',
        `writes are refused until the storage of DATA_DIR ${this.dataDir} accepts them again: ${error.message}`,
      ),
      code,
      cause: error.message,
      since: this.clock.now(),
    };
    this.attempts = 0;
    report(() => this.events.onStorageFault?.(this.fault!));
    this.schedule(STORAGE_RETRY_INITIAL_MS);
    return this.fault;
  }

  close(): void {
    this.closed = true;
    this.timer?.cancel();
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = this.clock.schedule(delayMs, () => void this.attempt(delayMs));
  }

  private async attempt(delayMs: number): Promise<void> {
    const fault = this.fault;
    if (!fault || this.closed) return;
    this.attempts++;
    try {
      if (fault.code === 'ENOSPC' && !(await hasHeadroom(this.dataDir))) throw new Error('still full');
      await this.heal();
    } catch {
      if (this.fault === fault) this.schedule(Math.min(delayMs * 2, STORAGE_RETRY_MAX_MS));
      return;
    }
    if (this.fault !== fault || this.closed) return;
    this.fault = undefined;
    report(() => this.events.onStorageHealed?.(fault, this.clock.now() - fault.since, this.attempts));
  }
}

/** The `code` of a Node I/O error (ENOSPC...), found on it or on what it wraps. */
export function errnoCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

async function hasHeadroom(dir: string): Promise<boolean> {
  try {
    const stats = await statfs(dir);
    return stats.bavail * stats.bsize >= STORAGE_HEADROOM_BYTES;
  } catch {
    // Nothing to tell: let the attempt itself find out.
    return true;
  }
}

function report(call: () => void): void {
  try {
    call();
  } catch {
    // a listener that throws must not change the store's state
  }
}
