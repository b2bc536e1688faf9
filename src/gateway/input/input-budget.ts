/** Nothing to close: shared, as nearly every update of a connection that holds nothing returns it. */
const NONE: readonly never[] = Object.freeze([]);

/**
 * The bytes all connections hold of messages received but not yet whole, against one budget: when an
 * update takes the total past it, connections holding at least the average are chosen to be closed,
 * the updated one first, until the total is back within the budget. A client that sends the start of a
 * large frame and stalls holds that much of the node; many of them, each within MAX_PAYLOAD_BYTES and
 * from addresses each within MAX_CONNECTIONS_PER_IP, would otherwise add up to more memory than the node
 * has. The largest holders go first, so a client whose one message is on its way is rarely the one closed.
 */
export class InputBudget<K> {
  private readonly holding = new Map<K, number>();
  private total = 0;

  constructor(private readonly limitBytes: number) {}

  /** What all connections hold now. */
  get heldBytes(): number {
    return this.total;
  }

  /**
   * `key` now holds `bytes` (0 once its message is whole or it closed). Returns the connections to close,
   * each with what it held, already taken off the budget.
   */
  update(key: K, bytes: number): readonly { key: K; held: number }[] {
    const before = this.holding.get(key) ?? 0;
    if (bytes !== before) {
      this.total += bytes - before;
      if (bytes > 0) this.holding.set(key, bytes);
      else this.holding.delete(key);
    }
    return this.total > this.limitBytes ? this.evict(key) : NONE;
  }

  private evict(updated: K): { key: K; held: number }[] {
    const evicted: { key: K; held: number }[] = [];
    while (this.total > this.limitBytes && this.holding.size > 0) {
      const average = this.total / this.holding.size;
      let victim: K | undefined;
      const own = this.holding.get(updated);
      if (own !== undefined && own >= average) victim = updated;
      else {
        for (const [key, held] of this.holding) {
          if (held >= average) {
            victim = key;
            break;
          }
        }
      }
      // Some holder is at or above the average whenever any holds anything.
      const held = this.holding.get(victim!)!;
      this.holding.delete(victim!);
      this.total -= held;
      evicted.push({ key: victim!, held });
    }
    return evicted;
  }
}
