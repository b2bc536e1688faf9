/** Past this many tracked principals, windows that ended without a suppression are dropped first. */
const MAX_TRACKED = 10_000;

/** What was suppressed for one principal over one window, reported when the window ends. */
export interface SuppressedLines {
  principal: string;
  /** Set for `User:ANONYMOUS`, which is counted per client address (see AuditRateLimit). */
  host?: string;
  suppressed: number;
  windowMs: number;
}

interface Window {
  principal: string;
  host?: string;
  startedAt: number;
  written: number;
  suppressed: number;
  reportTimer: NodeJS.Timeout | null;
}

/**
 * At most `maxLines` denial lines per principal per window of `windowMs` (fixed, from its first line);
 * past it lines are counted instead of written, and one report of the count is made when the window
 * ends, so a client that sends refused requests as fast as it can writes a bounded number of lines
 * and the operator still learns how many were refused. `User:ANONYMOUS` (failed authentication, or
 * every client without authentication) is counted per client address, so one prober's flood cannot
 * hide another's attempts. Memory: one entry per principal seen in a window, bounded by MAX_TRACKED.
 */
export class AuditRateLimit {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly maxLines: number,
    private readonly windowMs: number,
    private readonly report: (lines: SuppressedLines) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when the line may be written; false when it is counted as suppressed. */
  admit(principal: string, host: string, anonymous: boolean): boolean {
    if (this.maxLines <= 0) return true;
    const key = anonymous ? `${principal}@${host}` : principal;
    const now = this.now();
    let window = this.windows.get(key);
    if (window && window.reportTimer === null && now - window.startedAt >= this.windowMs) {
      this.windows.delete(key);
      window = undefined;
    }
    if (!window) {
      if (this.windows.size >= MAX_TRACKED) this.sweep(now);
      window = {
        principal,
        host: anonymous ? host : undefined,
        startedAt: now,
        written: 0,
        suppressed: 0,
        reportTimer: null,
      };
      if (this.windows.size < MAX_TRACKED) this.windows.set(key, window);
    }
    if (window.written < this.maxLines) {
      window.written++;
      return true;
    }
    window.suppressed++;
    if (window.reportTimer === null) {
      const current = window;
      current.reportTimer = setTimeout(
        () => this.end(key, current),
        Math.max(0, current.startedAt + this.windowMs - now),
      );
      current.reportTimer.unref();
    }
    return false;
  }

  /** Reports every open window's suppressions now (at shutdown). */
  flush(): void {
    for (const [key, window] of this.windows) if (window.reportTimer !== null) this.end(key, window);
    this.windows.clear();
  }

  private end(key: string, window: Window): void {
    if (window.reportTimer !== null) clearTimeout(window.reportTimer);
    window.reportTimer = null;
    if (this.windows.get(key) === window) this.windows.delete(key);
    this.report({
      principal: window.principal,
      ...(window.host !== undefined ? { host: window.host } : {}),
      suppressed: window.suppressed,
      windowMs: this.windowMs,
    });
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows)
      if (window.reportTimer === null && now - window.startedAt >= this.windowMs) this.windows.delete(key);
  }
}
