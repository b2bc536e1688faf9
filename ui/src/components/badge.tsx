/** Group states and lag statuses as coloured labels; the colour follows how worried an operator should be. */
const TONE: Record<string, string> = {
  Stable: 'good',
  Empty: 'muted',
  PreparingRebalance: 'busy',
  CompletingRebalance: 'busy',
  Dead: 'bad',
  OK: 'good',
  WARN: 'warn',
  ERR: 'bad',
  STOP: 'bad',
  STALL: 'bad',
  UNKNOWN: 'muted',
};

export function Badge({ value, title }: { value: string | null | undefined; title?: string }) {
  if (!value) return <span class="badge muted">—</span>;
  return (
    <span class={`badge ${TONE[value] ?? 'muted'}`} title={title}>
      {value}
    </span>
  );
}
