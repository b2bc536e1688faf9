/** Group states and lag statuses as coloured labels; the colour follows how worried an operator should be. */
const TONE: Record<string, string> = {
  Stable: 'good',
  Empty: 'muted',
  PreparingRebalance: 'busy',
  CompletingRebalance: 'busy',
  // Consumer groups (KIP-848): the target lags the group epoch, or a member does not hold its target yet.
  Assigning: 'busy',
  Reconciling: 'busy',
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

const TYPE_HELP: Record<string, string> = {
  classic: 'classic protocol: JoinGroup / SyncGroup, a generation at a time',
  consumer: "Kafka 4's consumer protocol (KIP-848): the coordinator assigns, each member reconciles on its own",
  share: 'share group (KIP-932): members share partitions, offsets are leased one at a time',
};

/** The group's type (classic, consumer, share), as a label beside its state. */
export function GroupTypeBadge({ type }: { type: string | null | undefined }) {
  if (!type) return <span class="badge muted">—</span>;
  return (
    <span class={`badge group-type ${type}`} title={TYPE_HELP[type]}>
      {type}
    </span>
  );
}
