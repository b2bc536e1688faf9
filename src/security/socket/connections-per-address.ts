/** Open connections per client address and in all (Kafka's `max.connections.per.ip` and `max.connections` bookkeeping). */
export class ConnectionsPerAddress {
  private readonly counts = new Map<string, number>();
  private open = 0;

  opened(address: string): void {
    this.counts.set(address, (this.counts.get(address) ?? 0) + 1);
    this.open++;
  }

  closed(address: string): void {
    if (!this.counts.has(address)) return;
    this.open--;
    const count = (this.counts.get(address) ?? 0) - 1;
    if (count > 0) this.counts.set(address, count);
    else this.counts.delete(address);
  }

  /** Open connections from every address. */
  get total(): number {
    return this.open;
  }

  count(address: string): number {
    return this.counts.get(address) ?? 0;
  }
}
