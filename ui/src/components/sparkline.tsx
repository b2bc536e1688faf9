import type { LagSample } from '../api/rest-types';
import { formatClock, formatNumber } from '../format';

const WIDTH = 120;
const HEIGHT = 24;

/** A partition's recent lag as a small line (oldest left), scaled to its own maximum. */
export function Sparkline({ samples }: { samples: readonly LagSample[] | undefined }) {
  const points = (samples ?? []).filter((s): s is LagSample & { lag: number } => s.lag !== null);
  if (points.length < 2) return <span class="muted">{points.length === 1 ? formatNumber(points[0].lag) : '—'}</span>;
  const t0 = points[0].timestamp;
  const span = Math.max(1, points[points.length - 1].timestamp - t0);
  const max = Math.max(1, ...points.map((p) => p.lag));
  const xy = points.map(
    (p) =>
      `${(((p.timestamp - t0) / span) * (WIDTH - 2) + 1).toFixed(1)},${(HEIGHT - 1 - (p.lag / max) * (HEIGHT - 2)).toFixed(1)}`,
  );
  const last = points[points.length - 1];
  const title = `lag ${formatNumber(points[0].lag)} at ${formatClock(t0)} → ${formatNumber(last.lag)} at ${formatClock(last.timestamp)} (max ${formatNumber(max)}, ${points.length} samples)`;
  return (
    <svg class="spark" width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={title}>
      <title>{title}</title>
      <polygon
        points={`1,${HEIGHT - 1} ${xy.join(' ')} ${WIDTH - 1},${HEIGHT - 1}`}
        fill="currentColor"
        fill-opacity="0.12"
        stroke="none"
      />
      <polyline points={xy.join(' ')} fill="none" stroke="currentColor" stroke-width="1.5" />
    </svg>
  );
}
