import type { LoggerService } from '@nestjs/common';

/**
 * Nest's own start-up chatter (one line per module, per route, per socket.io event) goes to debug, so
 * that at info a start is a handful of lines and the one that says where the node listens stands out.
 * Everything else passes through unchanged.
 */
const STARTUP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'WebSocketsController',
  'NestApplication',
]);

export class QuietStartupLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && STARTUP_CONTEXTS.has(context)) this.debug(message, ...optionalParams);
    else this.inner.log(message, ...optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    // A port that cannot be listened on: main.ts says so in one line naming the variable (startup-failure.ts).
    const context = optionalParams[optionalParams.length - 1];
    if (
      context === 'NestApplication' &&
      typeof message === 'string' &&
      /^Error: listen E(ADDRINUSE|ACCES)\b/.test(message)
    )
      this.debug(message, ...optionalParams);
    else this.inner.error(message, ...optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.warn(message, ...optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.debug?.(message, ...optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.verbose?.(message, ...optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    (this.inner.fatal ?? this.inner.error).call(this.inner, message, ...optionalParams);
  }
}
