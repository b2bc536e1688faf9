/** The conformance report as plain text, one line per dimension, violations last. */
import type { ConformanceReport } from './run-conformance';

const percent = (part: number, whole: number): string => (whole === 0 ? '-' : `${Math.round((100 * part) / whole)}%`);
const mark = (ok: boolean): string => (ok ? 'ok  ' : 'FAIL');

export function formatReport(report: ConformanceReport, source: string): string {
  const { balance, stickiness, determinism, staticMembers, cooperative, timing } = report;
  const beyond = Math.max(0, stickiness.moved - stickiness.forced);
  const lines = [
    `Conformance report for assignor '${report.assignor}' (${source})`,
    `protocols: ${report.protocols.join(', ')}; ${report.scenarios} scenarios, ${report.rebalances} rebalances, ${report.calls} calls (seed ${report.seed})`,
    '',
    `${mark(report.violationCount === 0)} validity      every subscribed partition assigned exactly once, nothing unsubscribed or nonexistent${report.violationCount ? ` — ${report.violationCount} violation(s)` : ''}`,
    `${mark(determinism.same === determinism.total)} determinism   same input, same assignment: ${determinism.same}/${determinism.total}`,
    `     balance       fully balanced (sizes differ by ≤ 1): ${balance.fully}/${balance.total} (${percent(balance.fully, balance.total)}); ` +
      `Kafka-balanced: ${balance.kafka}/${balance.total}; strictly balanced: ${balance.strict}/${balance.total}`,
    `     stickiness    ${stickiness.moved} owned partitions moved, ${stickiness.forced} forced by the new sizes, ${beyond} beyond (${percent(beyond, stickiness.moved)} of moves); ` +
      `identical subscriptions: ${stickiness.uniformMoved} moved vs ${stickiness.uniformMinimal} minimal`,
    `     static        static members keeping their partitions across restarts: ${staticMembers.kept}/${staticMembers.total}`,
    cooperative
      ? `     cooperative   ${cooperative.rebalances} rebalances needed ${cooperative.followUps} follow-ups (at most ${cooperative.maxFollowUps} per rebalance; limit 4)`
      : '     cooperative   not declared (eager only)',
    `     time          ${timing.meanMs.toFixed(2)} ms per call on average, ${timing.maxMs.toFixed(2)} ms at most; ` +
      `largest group ${timing.largest.partitions} partitions × ${timing.largest.members} members: ${timing.largest.ms.toFixed(2)} ms`,
  ];
  if (report.violations.length > 0) {
    lines.push('', 'Violations:');
    for (const v of report.violations) lines.push(`  - ${v}`);
    if (report.violationCount > report.violations.length)
      lines.push(`  ... and ${report.violationCount - report.violations.length} more`);
  }
  lines.push('', report.violationCount === 0 ? 'RESULT: PASS' : `RESULT: FAIL (${report.violationCount} violation(s))`);
  return lines.join('\n');
}
