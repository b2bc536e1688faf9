/**
 * A tiny typed event emitter that works in browsers and Node alike (no Node `events`). Listeners may
 * be async: `emitAndWait` runs them one after another and awaits each, which is how the member gives
 * rebalance listeners the time they need. A listener that throws never stops the others; the failure
 * goes to `onListenerError`.
 */
export type Listener<T> = (payload: T) => unknown;

export class Emitter<Events extends { [K in keyof Events]: unknown }> {
  private readonly listeners = new Map<keyof Events, Listener<never>[]>();

  constructor(private readonly onListenerError: (event: keyof Events, error: unknown) => void) {}

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    const list = this.listeners.get(event) ?? [];
    list.push(listener as Listener<never>);
    this.listeners.set(event, list);
    return this;
  }

  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    const wrapped: Listener<Events[K]> = (payload) => {
      this.off(event, wrapped);
      return listener(payload);
    };
    return this.on(event, wrapped);
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    const list = this.listeners.get(event);
    if (list)
      this.listeners.set(
        event,
        list.filter((l) => l !== listener),
      );
    return this;
  }

  listenerCount(event: keyof Events): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  /** Calls every listener now; async ones run on, their rejections are reported. */
  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])] as Listener<Events[K]>[]) {
      try {
        const result = listener(payload);
        if (isPromiseLike(result)) result.then(undefined, (error: unknown) => this.onListenerError(event, error));
      } catch (error) {
        this.onListenerError(event, error);
      }
    }
  }

  /** Calls the listeners in order, awaiting each; resolves when all are done (failures reported, not thrown). */
  async emitAndWait<K extends keyof Events>(event: K, payload: Events[K]): Promise<void> {
    for (const listener of [...(this.listeners.get(event) ?? [])] as Listener<Events[K]>[]) {
      try {
        await listener(payload);
      } catch (error) {
        this.onListenerError(event, error);
      }
    }
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
