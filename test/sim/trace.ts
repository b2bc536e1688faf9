/** A bounded, readable log of what happened in a simulation, printed when an invariant breaks. */
export class Trace {
  private readonly lines: string[] = [];
  private start: number | undefined;

  constructor(private readonly capacity = Number(process.env.SIM_TRACE_LINES ?? 400)) {}

  add(now: number, line: string): void {
    this.start ??= now;
    this.lines.push(`${String(now - this.start).padStart(8)}ms  ${line}`);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  /** The last `n` lines, oldest first. */
  dump(n = this.capacity): string {
    return this.lines.slice(-n).join('\n');
  }
}
