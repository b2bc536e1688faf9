/** Open connections per client address (Kafka's `max.connections.per.ip` bookkeeping). */
export class ConnectionsPerAddress {
  private readonly counts = new Map<string, number>();

  opened(address: string): void {
    this.counts.set(address, (this.counts.get(address) ?? 0) + 1);
  }

  closed(address: string): void {
    const count = (this.counts.get(address) ?? 0) - 1;
    if (count > 0) this.counts.set(address, count);
    else this.counts.delete(address);
  }

  count(address: string): number {
    return this.counts.get(address) ?? 0;
  }
}
