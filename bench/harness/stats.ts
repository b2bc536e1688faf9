/** Small statistics and formatting helpers for the benchmark printout. */

export function percentile(sortedAscending: number[], p: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const index = Math.min(sortedAscending.length - 1, Math.max(0, Math.ceil((p / 100) * sortedAscending.length) - 1));
  return sortedAscending[index];
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value < 10 ? `${value.toFixed(2)} ms` : `${value.toFixed(0)} ms`;
}

export function perSecond(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value).toLocaleString('en-US')}/s` : 'n/a';
}

export function ratio(numerator: number, denominator: number): string {
  return Number.isFinite(denominator) && denominator > 0 ? times(numerator / denominator) : 'n/a';
}

/** A ratio already computed (a median of per-round ratios, say), printed as `ratio` prints one. */
export function times(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a';
}

/** Prints rows as an aligned table. */
export function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

export function elapsedMs(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e6;
}

/** "1 process", "4 processes": how many worker processes drive the members. */
export function processes(count: number): string {
  return count === 1 ? '1 process' : `${count} processes`;
}
