import { Global, Module } from '@nestjs/common';
import { type Logger, pino } from 'pino';
import { CohortConfig } from '../config/cohort-config';
import { prettyOnTerminal } from './pretty-on-terminal';

/** The app's one pino logger: Nest's lines, request lines, audit lines and the start-up summary all go through it. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/** The root logger for a configuration: its level, readable lines on a terminal, credentials redacted. */
export function createRootLogger(config: CohortConfig): Logger {
  return pino({
    level: config.logLevel,
    ...prettyOnTerminal(),
    // A refused call (401/403) is logged at info with its headers: credentials must not be.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-cohort-node-auth"]'],
      censor: '[redacted]',
    },
  });
}

/**
 * Provides ROOT_LOGGER to every module. A few lines of our own rather than nestjs-pino, whose releases
 * for Nest 12 require Node 22 while Cohort runs on Node 20; its request context (an AsyncLocalStorage)
 * was not used either (RequestLogMiddleware says why).
 */
@Global()
@Module({
  providers: [{ provide: ROOT_LOGGER, inject: [CohortConfig], useFactory: createRootLogger }],
  exports: [ROOT_LOGGER],
})
export class RootLoggerModule {}
