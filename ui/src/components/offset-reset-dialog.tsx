import { useEffect, useRef, useState } from 'preact/hooks';
import { api, groupPath } from '../api/api';
import type { ResetOffsetsRequest, ResetOffsetsResult, ResetStrategy } from '../api/rest-types';
import { formatNumber } from '../format';
import { ErrorBanner } from './error-banner';

const STRATEGIES: { value: ResetStrategy; label: string }[] = [
  { value: 'earliest', label: 'to earliest (reported start offset)' },
  { value: 'latest', label: 'to latest (reported end offset)' },
  { value: 'offset', label: 'to offset N' },
  { value: 'shift', label: 'shift by N (clamped to start/end)' },
  { value: 'current', label: 'to current (rewrite as is)' },
];

interface Props {
  groupId: string;
  /** Topics the group has offsets for, to choose from. */
  topics: string[];
  /** Members now: the node executes a reset only for an Empty group, a preview always. */
  members: number;
  /** A share group: its offsets are the share partitions' start offsets (SPSO), its members lease from them. */
  share?: boolean;
  onClose(): void;
  onReset(result: ResetOffsetsResult): void;
}

/**
 * Offset reset as `kafka-consumer-groups.sh --reset-offsets` (for a share group `kafka-share-groups.sh`) does it: the node's dry run first (current →
 * new per partition), then, after a second yes, the same request executed. The node refuses (409) while
 * the group has members.
 */
export function OffsetResetDialog({ groupId, topics, members, share = false, onClose, onReset }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const [strategy, setStrategy] = useState<ResetStrategy>('earliest');
  const [value, setValue] = useState('0');
  const [allTopics, setAllTopics] = useState(true);
  const [chosen, setChosen] = useState<Set<string>>(new Set(topics.slice(0, 1)));
  const [preview, setPreview] = useState<ResetOffsetsResult | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => ref.current?.showModal(), []);

  const needsValue = strategy === 'offset' || strategy === 'shift';
  const request = (dryRun: boolean): ResetOffsetsRequest => ({
    strategy,
    dryRun,
    ...(needsValue ? { value: Number(value) } : {}),
    ...(allTopics ? { allTopics: true } : { topics: [...chosen].map((name) => ({ name })) }),
  });
  // Any change of the form makes the preview stale: it must be asked for again before executing.
  const changed = (apply: () => void) => {
    apply();
    setPreview(null);
    setConfirming(false);
  };
  const send = async (dryRun: boolean): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const result = await api.post<ResetOffsetsResult>(groupPath(groupId, '/offsets/reset'), request(dryRun));
      if (dryRun) setPreview(result);
      else {
        onReset(result);
        onClose();
      }
    } catch (caught) {
      setError(caught);
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  };
  const valueValid =
    !needsValue ||
    (value.trim() !== '' && Number.isSafeInteger(Number(value)) && (strategy === 'shift' || Number(value) >= 0));
  const canPreview = valueValid && (allTopics || chosen.size > 0) && !busy;

  return (
    <dialog ref={ref} class="reset" onCancel={onClose} aria-label="Reset offsets">
      <h3>Reset offsets of {groupId}</h3>
      <div class="form">
        <label>
          Strategy
          <select
            name="strategy"
            value={strategy}
            onChange={(e) => changed(() => setStrategy(e.currentTarget.value as ResetStrategy))}
          >
            {STRATEGIES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        {needsValue && (
          <label>
            {strategy === 'offset' ? 'Offset' : 'Shift by'}
            <input
              name="value"
              type="number"
              value={value}
              onInput={(e) => changed(() => setValue(e.currentTarget.value))}
            />
          </label>
        )}
        <fieldset>
          <legend>Topics</legend>
          <label class="inline">
            <input
              type="checkbox"
              name="allTopics"
              checked={allTopics}
              onChange={(e) => changed(() => setAllTopics(e.currentTarget.checked))}
            />
            all topics of the group
          </label>
          {!allTopics &&
            topics.map((topic) => (
              <label class="inline" key={topic}>
                <input
                  type="checkbox"
                  checked={chosen.has(topic)}
                  onChange={(e) => {
                    const checked = e.currentTarget.checked;
                    changed(() =>
                      setChosen(
                        (previous) =>
                          new Set(checked ? [...previous, topic] : [...previous].filter((t) => t !== topic)),
                      ),
                    );
                  }}
                />
                {topic}
              </label>
            ))}
        </fieldset>
      </div>
      {members > 0 && (
        <p class="warning">
          The group has {members} member{members === 1 ? '' : 's'}: a preview works, but the node executes a reset only
          once the group is Empty (stop its {share ? 'members' : 'consumers'} first).
        </p>
      )}
      <ErrorBanner error={error} />
      {preview && <ResetPreview result={preview} />}
      {confirming && preview && (
        <p class="warning">
          Write these {formatNumber(preview.offsets.length)} offsets to group <strong>{groupId}</strong>?{' '}
          {share
            ? 'Each share partition starts afresh there: what was acknowledged or archived is forgotten, and its members lease from them when they next join.'
            : 'Its consumers start from them when they next join.'}
        </p>
      )}
      <div class="actions">
        <button type="button" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" onClick={() => void send(true)} disabled={!canPreview}>
          Preview
        </button>
        {preview && !confirming && (
          <button
            type="button"
            class="primary"
            onClick={() => setConfirming(true)}
            disabled={busy || preview.offsets.length === 0}
          >
            Execute…
          </button>
        )}
        {confirming && (
          <button type="button" class="danger" onClick={() => void send(false)} disabled={busy}>
            {busy ? 'Resetting…' : 'Yes, reset offsets'}
          </button>
        )}
      </div>
    </dialog>
  );
}

function ResetPreview({ result }: { result: ResetOffsetsResult }) {
  if (result.offsets.length === 0) return <p class="muted">Nothing to reset: no partition matches.</p>;
  return (
    <div class="preview">
      <h4>Dry run: {formatNumber(result.offsets.length)} partitions</h4>
      <table>
        <thead>
          <tr>
            <th>Topic</th>
            <th class="num">Partition</th>
            <th class="num">Current</th>
            <th class="num">New</th>
            <th class="num">Change</th>
          </tr>
        </thead>
        <tbody>
          {result.offsets.map((o) => (
            <tr key={`${o.topic}-${o.partition}`} data-partition={`${o.topic}-${o.partition}`}>
              <td>{o.topic}</td>
              <td class="num">{o.partition}</td>
              <td class="num">{formatNumber(o.currentOffset)}</td>
              <td class="num new-offset">{formatNumber(o.newOffset)}</td>
              <td class="num">{o.currentOffset === null ? 'new' : signed(o.newOffset - o.currentOffset)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function signed(delta: number): string {
  return delta > 0 ? `+${formatNumber(delta)}` : formatNumber(delta);
}
