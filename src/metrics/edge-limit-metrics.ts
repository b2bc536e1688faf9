import { Counter, type Registry } from 'prom-client';

/**
 * What the limits at the node's edge refused or closed, on the node's registry: handshakes over the
 * connection caps or from a foreign Host, rate-limited requests, suppressed audit lines, sessions that did
 * not authenticate, and connections closed by the output and input limits (docs/operations.md, "Limits at
 * the edges"; docs/security.md, "Limits"). Every labelled series exists from the start, so an alert on
 * its increase sees the first refusal.
 */
export class EdgeLimitMetrics {
  private readonly outputLimitCloses: Counter<'limit'>;
  private readonly inputLimitCloses: Counter;
  private readonly handshakesRefused: Counter<'reason'>;
  private readonly rateLimitedCount: Counter<'limit'>;
  private readonly auditSuppressed: Counter;
  private readonly authTimeouts: Counter;

  constructor(registry: Registry) {
    this.outputLimitCloses = new Counter({
      name: 'cohort_socket_output_limit_closes_total',
      help: 'Socket connections closed because their unsent output passed MAX_SOCKET_OUTPUT_BUFFER_BYTES (limit="hard") or stayed above MAX_SOCKET_OUTPUT_BUFFER_SOFT_BYTES for MAX_SOCKET_OUTPUT_BUFFER_SOFT_SECONDS (limit="soft").',
      labelNames: ['limit'] as const,
      registers: [registry],
    });
    this.inputLimitCloses = new Counter({
      name: 'cohort_socket_input_limit_closes_total',
      help: 'Socket connections closed because all connections together held more than MAX_SOCKET_INPUT_BUFFER_BYTES of messages not yet whole, and they held at least the average.',
      registers: [registry],
    });
    this.handshakesRefused = new Counter({
      name: 'cohort_socket_handshakes_refused_total',
      help: 'engine.io handshakes refused before a session was opened: reason="max_connections_per_ip" (MAX_CONNECTIONS_PER_IP), "max_connections" (MAX_CONNECTIONS, the whole node) or "host" (a foreign Host in protected mode).',
      labelNames: ['reason'] as const,
      registers: [registry],
    });
    this.rateLimitedCount = new Counter({
      name: 'cohort_rate_limited_total',
      help: 'Requests refused with 89 THROTTLING_QUOTA_EXCEEDED by a rate limit: limit="rest" (RATE_LIMIT_REST_PER_MINUTE) or "socket_events" (RATE_LIMIT_SOCKET_EVENTS_PER_SECOND).',
      labelNames: ['limit'] as const,
      registers: [registry],
    });
    this.auditSuppressed = new Counter({
      name: 'cohort_audit_lines_suppressed_total',
      help: 'Audit denial lines not written because their principal passed AUDIT_LOG_LIMIT_LINES in AUDIT_LOG_LIMIT_WINDOW_MS (each window reports its count in one line).',
      registers: [registry],
    });
    this.authTimeouts = new Counter({
      name: 'cohort_socket_auth_timeouts_total',
      help: 'Socket sessions closed because they had not authenticated within SOCKET_AUTH_TIMEOUT_MS.',
      registers: [registry],
    });
    for (const limit of ['hard', 'soft']) this.outputLimitCloses.inc({ limit }, 0);
    for (const reason of ['max_connections_per_ip', 'max_connections', 'host'])
      this.handshakesRefused.inc({ reason }, 0);
    for (const limit of ['rest', 'socket_events']) this.rateLimitedCount.inc({ limit }, 0);
  }

  socketHandshakeRefused(reason: 'max_connections_per_ip' | 'max_connections' | 'host'): void {
    this.handshakesRefused.inc({ reason });
  }

  rateLimited(limit: 'rest' | 'socket_events'): void {
    this.rateLimitedCount.inc({ limit });
  }

  auditLinesSuppressed(count: number): void {
    this.auditSuppressed.inc(count);
  }

  socketAuthTimedOut(): void {
    this.authTimeouts.inc();
  }

  socketOutputLimitClosed(limit: 'hard' | 'soft'): void {
    this.outputLimitCloses.inc({ limit });
  }

  socketInputLimitClosed(): void {
    this.inputLimitCloses.inc();
  }
}
