import type { Emitter, Listener } from './emitter';

/**
 * The public `on` / `once` / `off` of an object whose events its own Emitter delivers (the members of
 * every group type): the subclass keeps `emit` to itself, applications only listen.
 */
export abstract class Listenable<Events extends { [K in keyof Events]: unknown }> {
  protected abstract readonly events: Emitter<Events>;

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    this.events.on(event, listener);
    return this;
  }

  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    this.events.once(event, listener);
    return this;
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): this {
    this.events.off(event, listener);
    return this;
  }
}
