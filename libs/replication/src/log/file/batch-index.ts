/**
 * Where each batch of one segment sits: first and last record offset, file position, frame size and
 * epoch, in growable typed arrays. A million small batches cost ~28 MB here instead of a million
 * objects, which is what lets a big log open in seconds.
 */
export class BatchIndex {
  private first = new Float64Array(16);
  private last = new Float64Array(16);
  private pos = new Float64Array(16);
  private sizes = new Uint32Array(16);
  private epochs = new Int32Array(16);
  private n = 0;

  get length(): number {
    return this.n;
  }

  add(firstOffset: number, lastOffset: number, position: number, size: number, epoch: number): void {
    if (this.n === this.first.length) this.grow();
    const i = this.n++;
    this.first[i] = firstOffset;
    this.last[i] = lastOffset;
    this.pos[i] = position;
    this.sizes[i] = size;
    this.epochs[i] = epoch;
  }

  firstOffset(i: number): number {
    return this.first[i];
  }

  lastOffset(i: number): number {
    return this.last[i];
  }

  position(i: number): number {
    return this.pos[i];
  }

  size(i: number): number {
    return this.sizes[i];
  }

  epoch(i: number): number {
    return this.epochs[i];
  }

  /** Index of the first batch whose last offset is >= `offset` (length if none). */
  firstEndingAtOrAfter(offset: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.last[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Forgets batches from index `i` on. */
  truncate(i: number): void {
    this.n = Math.min(this.n, Math.max(0, i));
  }

  private grow(): void {
    const cap = this.first.length * 2;
    this.first = copyInto(new Float64Array(cap), this.first);
    this.last = copyInto(new Float64Array(cap), this.last);
    this.pos = copyInto(new Float64Array(cap), this.pos);
    this.sizes = copyInto(new Uint32Array(cap), this.sizes);
    this.epochs = copyInto(new Int32Array(cap), this.epochs);
  }
}

function copyInto<T extends Float64Array | Uint32Array | Int32Array>(target: T, source: T): T {
  target.set(source);
  return target;
}
