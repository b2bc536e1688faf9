import { createCohortApp } from './create-cohort-app';
import { CohortConfig } from './config/cohort-config';
import { ConfigurationError } from './config/validate-environment';
import { logStartupSummary } from './logging/startup-summary';
import { StorageStartError } from './node/storage/storage-start-error';

/** `npm start`: one node from process.env, stopped gracefully on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const startedAt = performance.now();
  const app = await createCohortApp(process.env);
  app.enableShutdownHooks(['SIGINT', 'SIGTERM']);
  const config = app.get(CohortConfig);
  await app.listen(config.port, config.host);
  await logStartupSummary(app, startedAt);
}

main().catch((error: unknown) => {
  // DATA_DIR held by another node, full or unwritable: the operator's to fix, in one line.
  if (error instanceof StorageStartError) {
    process.stderr.write(`cohort: failed to start: ${error.message}\n`);
    process.exit(1);
  }
  // A bad configuration is the operator's to fix: say which variables, without a stack trace.
  const message =
    error instanceof ConfigurationError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  process.stderr.write(`cohort: failed to start\n${message}\n`);
  process.exit(1);
});
