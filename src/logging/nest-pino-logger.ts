import type { LoggerService } from '@nestjs/common';
import type { Level, Logger } from 'pino';

/**
 * Nest's LoggerService over pino: `log(message, ...params, context)` becomes one pino line with
 * `context` (the last parameter, as Nest passes it), an Error or an object message merged into the
 * line's fields (an Error under `err`), other parameters formatted into the message.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.write('trace', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.write('debug', message, optionalParams);
  }

  log(message: unknown, ...optionalParams: unknown[]): void {
    this.write('info', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.write('warn', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.write('error', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.write('fatal', message, optionalParams);
  }

  private write(level: Level, message: unknown, optionalParams: unknown[]): void {
    const fields: Record<string, unknown> = {};
    let params = optionalParams;
    if (optionalParams.length > 0) {
      fields.context = optionalParams[optionalParams.length - 1];
      params = optionalParams.slice(0, -1);
    }
    if (message instanceof Error) {
      this.emit(level, { ...fields, err: message }, params);
    } else if (typeof message === 'object' && message !== null) {
      this.emit(level, { ...fields, ...message }, params);
    } else if (level === 'error' && typeof message === 'string' && isStack(params)) {
      // Nest's exception handlers call error(message, stack, context): keep the stack as the error's.
      const err = new Error(message);
      err.stack = params[0] as string;
      this.emit(level, { ...fields, err }, []);
    } else {
      this.emit(level, fields, [String(message), ...params]);
    }
  }

  /** pino's `logger[level](mergeObject, message?, ...interpolationValues)`. */
  private emit(level: Level, fields: object, args: unknown[]): void {
    (this.logger[level] as (fields: object, ...args: unknown[]) => void).call(this.logger, fields, ...args);
  }
}

function isStack(params: unknown[]): boolean {
  return params.length === 1 && typeof params[0] === 'string' && /\n\s*at /.test(params[0]);
}
