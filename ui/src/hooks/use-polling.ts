import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Polled<T> {
  data: T | null;
  error: unknown;
  /** When the last successful answer arrived. */
  updatedAt: number | null;
  /** Fetch now (after an action), without waiting for the next tick. */
  refresh(): void;
}

/**
 * Calls `load` now and then every `intervalMs` after the previous call finished (never two at once, so
 * a slow node is not piled on), while the tab is visible. Keeps the last data through an error.
 */
export function usePolling<T>(load: () => Promise<T>, intervalMs: number, deps: readonly unknown[]): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const wake = useRef<() => void>(() => undefined);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    // A refresh asked for while a call is in flight runs right after it, so an action's effect shows.
    let again = false;
    setData(null);
    setError(null);
    setUpdatedAt(null);
    const tick = async (): Promise<void> => {
      clearTimeout(timer);
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      again = false;
      running = true;
      try {
        const value = await load();
        if (stopped) return;
        setData(value);
        setError(null);
        setUpdatedAt(Date.now());
      } catch (caught) {
        if (!stopped) setError(caught);
      } finally {
        running = false;
        if (!stopped && !document.hidden) timer = setTimeout(tick, again ? 0 : intervalMs);
      }
    };
    wake.current = () => void tick();
    const onVisibility = (): void => {
      if (!document.hidden) void tick();
    };
    document.addEventListener('visibilitychange', onVisibility);
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, deps);

  const refresh = useCallback(() => wake.current(), []);
  return { data, error, updatedAt, refresh };
}
