import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorBanner } from './error-banner';

interface Props {
  title: string;
  confirmLabel: string;
  /** Runs on confirm; the dialog stays open showing the error if it rejects. */
  onConfirm(): Promise<void>;
  onClose(): void;
  danger?: boolean;
  children: ComponentChildren;
}

/** A modal question before anything that changes the cluster; nothing happens until it is answered yes. */
export function ConfirmDialog({ title, confirmLabel, onConfirm, onClose, danger, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const confirm = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} class="confirm" onCancel={onClose} aria-label={title}>
      <h3>{title}</h3>
      <div>{children}</div>
      <ErrorBanner error={error} />
      <div class="actions">
        <button type="button" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" class={danger ? 'danger' : 'primary'} onClick={() => void confirm()} disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
