/**
 * socket.io's connection-state recovery skips the handshake middlewares by default
 * (`skipMiddlewares: true`), so a recovered session would not be authenticated again. Wherever recovery
 * is turned on, keep the middlewares: every reconnection passes authentication.
 */
export function withAuthenticatedRecovery<T extends { connectionStateRecovery?: object }>(options: T): T {
  if (!options.connectionStateRecovery) return options;
  return { ...options, connectionStateRecovery: { ...options.connectionStateRecovery, skipMiddlewares: false } };
}
