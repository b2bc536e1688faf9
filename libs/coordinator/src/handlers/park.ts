import type { CoordinatorLogger } from '../ports/coordinator-metrics.port';

/**
 * Runs a handler that answers through a callback (possibly much later, as Kafka parks JoinGroup and
 * SyncGroup). A bug that throws inside it answers with `onBug` instead of leaving the request hanging.
 */
export function parkRequest<T>(
  logger: CoordinatorLogger,
  run: (resolve: (value: T) => void) => void,
  onBug: (message: string) => T,
): Promise<T> {
  return new Promise<T>((resolve) => {
    try {
      run(resolve);
    } catch (error) {
      logger.error(
        `coordinator handler failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      resolve(onBug(`internal error: ${error instanceof Error ? error.message : String(error)}`));
    }
  });
}
