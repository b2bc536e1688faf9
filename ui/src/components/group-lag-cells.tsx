import type { GroupLagSummary } from '../hooks/use-group-lags';
import { formatNumber, formatTimeLag } from '../format';
import { Badge } from './badge';

/**
 * A group row's lag: the summed lag, the largest time lag (docs/lag.md) and Burrow's status; `…` while
 * the group's lag is being fetched, `—` where it is unknown (no end offset reported).
 */
export function GroupLagCells({ lag }: { lag: GroupLagSummary | 'ERROR' | undefined }) {
  const pending = <span class="muted">…</span>;
  const known = lag !== undefined && lag !== 'ERROR' ? lag : null;
  return (
    <>
      <td class="num lag-total">{lag === undefined ? pending : formatNumber(known?.totalLag)}</td>
      <td class="num time-lag">{lag === undefined ? pending : formatTimeLag(known?.maxTimeLagMs)}</td>
      <td class="lag-status">{lag === undefined ? pending : <Badge value={known ? known.status : 'ERROR'} />}</td>
    </>
  );
}
