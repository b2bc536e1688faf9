interface PageTarget {
  addEventListener?(type: string, listener: (event: { persisted?: boolean }) => void): void;
  removeEventListener?(type: string, listener: (event: { persisted?: boolean }) => void): void;
}

export interface PageLifecycle {
  /** The page is going away (a reload, a navigation, the tab closing, or into the back/forward cache). */
  hidden(): void;
  /** The page came back from the back/forward cache after `hidden`. */
  restored(): void;
}

/**
 * In a browser, calls `hidden` on `pagehide` — the last event a page reliably gets before it unloads
 * (`unload` and `beforeunload` are not fired on mobile and spoil the back/forward cache) — and
 * `restored` on a `pageshow` that brings the page back from the back/forward cache. Returns the function
 * that stops watching. No-op outside browsers.
 */
export function watchPageLifecycle(lifecycle: PageLifecycle): () => void {
  const page = (globalThis as { window?: PageTarget }).window;
  if (typeof page?.addEventListener !== 'function') return () => undefined;
  const onHide = (): void => lifecycle.hidden();
  const onShow = (event: { persisted?: boolean }): void => {
    if (event.persisted === true) lifecycle.restored();
  };
  page.addEventListener('pagehide', onHide);
  page.addEventListener('pageshow', onShow);
  return () => {
    page.removeEventListener?.('pagehide', onHide);
    page.removeEventListener?.('pageshow', onShow);
  };
}
