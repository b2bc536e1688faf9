/**
 * A person at a terminal reads lines, log collectors read JSON: pino-pretty's transport when stdout is a
 * TTY, plain JSON lines otherwise (containers, systemd, files, pipes).
 */
export function prettyOnTerminal(isTty = process.stdout.isTTY === true): {
  transport?: { target: string; options: Record<string, unknown> };
} {
  if (!isTty) return {};
  return {
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
