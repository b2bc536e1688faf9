import { Logger } from '@nestjs/common';
import type { CoordinatorLogger } from '@cohort/coordinator';

/** The libraries' logger port over Nest's Logger (pino once the app has switched to it). */
export function coordinatorLogger(context: string): CoordinatorLogger {
  const logger = new Logger(context);
  return {
    debug: (message) => logger.debug(message),
    info: (message) => logger.log(message),
    warn: (message) => logger.warn(message),
    error: (message) => logger.error(message),
  };
}
