interface VisibilityTarget {
  addEventListener?(type: string, listener: () => void): void;
  removeEventListener?(type: string, listener: () => void): void;
}

/**
 * In a browser, calls `onVisible` on every `visibilitychange` (a tab coming back from the background
 * may have had its timers throttled); returns the function that stops watching. No-op outside browsers.
 */
export function watchVisibility(onVisible: () => void): () => void {
  const doc = (globalThis as { document?: VisibilityTarget }).document;
  if (typeof doc?.addEventListener !== 'function') return () => undefined;
  doc.addEventListener('visibilitychange', onVisible);
  return () => doc.removeEventListener?.('visibilitychange', onVisible);
}
