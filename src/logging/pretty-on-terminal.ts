import type { LoggerOptions } from 'pino';
import { JSON_SAFE_HOOKS, TERMINAL_SAFE_HOOKS } from './terminal-safe';

/**
 * A person at a terminal reads lines, log collectors read JSON: pino-pretty's transport when stdout is a
 * TTY, plain JSON lines otherwise (containers, systemd, files, pipes); either way with the control
 * characters of every field escaped (terminal-safe.ts), so that text a client chose cannot forge a line.
 */
export function prettyOnTerminal(isTty = process.stdout.isTTY === true): {
  transport?: { target: string; options: Record<string, unknown> };
  hooks?: LoggerOptions['hooks'];
} {
  if (!isTty) return { hooks: JSON_SAFE_HOOKS };
  return {
    // pino-pretty prints the message as it is: a client's group id with a newline would forge a line.
    hooks: TERMINAL_SAFE_HOOKS,
    transport: {
      target: 'pino-pretty',
      options: {
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        messageFormat: '{if context}[{context}] {end}{msg}',
        // The start-up summary's fields are in its message already; request objects are for collectors.
        ignore: 'pid,hostname,context,summary,req,res,responseTime',
      },
    },
  };
}
