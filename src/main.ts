import { createCohortApp } from './create-cohort-app';
import { CohortConfig } from './config/cohort-config';
import { applyGcPolicy } from './gc-policy';
import { describeStartupFailure } from './logging/startup-failure';
import { logStartupSummary } from './logging/startup-summary';

/** `npm start`: one node from process.env, stopped gracefully on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const startedAt = performance.now();
  applyGcPolicy();
  const app = await createCohortApp(process.env);
  app.enableShutdownHooks(['SIGINT', 'SIGTERM']);
  const config = app.get(CohortConfig);
  await app.listen(config.port, config.host);
  await logStartupSummary(app, startedAt);
}

main().catch((error: unknown) => {
  // A bad configuration, a busy port, a DATA_DIR held by another node, full or unwritable: the
  // operator's to fix, said without a stack trace (one line when the reason is one line).
  const reason = describeStartupFailure(error, process.env);
  process.stderr.write(
    reason.includes('\n') ? `cohort: failed to start\n${reason}\n` : `cohort: failed to start: ${reason}\n`,
  );
  process.exit(1);
});
