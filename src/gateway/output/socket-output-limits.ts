import { Injectable, Logger } from '@nestjs/common';
import { CohortConfig } from '../../config/cohort-config';
import { CohortMetrics } from '../../metrics/cohort-metrics';
import { ConnectionOutput, type OutputLimitKind, type OutputLimits } from './connection-output';
import { closeDiscarding, type EngineConnection } from '../socket-io-internals';

const MIB = 1024 * 1024;

/**
 * Every connection's unsent output held to MAX_SOCKET_OUTPUT_BUFFER_BYTES (close at once past it) and
 * MAX_SOCKET_OUTPUT_BUFFER_SOFT_BYTES for MAX_SOCKET_OUTPUT_BUFFER_SOFT_SECONDS (close when above it that
 * long), as Redis's `client-output-buffer-limit`: a client that does not read what it asked for cannot
 * fill the node's memory. A close drops what was unsent, is counted in
 * `cohort_socket_output_limit_closes_total{limit}` and logged as one warning.
 *
 * Watched from the engine.io connection's first packet (CohortIoAdapter), so it covers every client,
 * authenticated or not, and every kind of output: answers, pushes, socket.io's own packets.
 */
@Injectable()
export class SocketOutputLimits {
  private readonly logger = new Logger('SocketOutputLimits');
  private readonly outputs = new WeakMap<object, ConnectionOutput>();
  private readonly limits: OutputLimits;

  constructor(
    config: CohortConfig,
    private readonly metrics: CohortMetrics,
  ) {
    this.limits = config.socketOutputLimits;
  }

  watch(connection: EngineConnection): void {
    if (this.limits.hardBytes === 0 && this.limits.softBytes === 0) return;
    const output = new ConnectionOutput(connection, this.limits, (kind, unsent) =>
      this.exceeded(connection, kind, unsent),
    );
    this.outputs.set(connection, output);
  }

  /** The watched output of an engine.io connection (undefined when no limit applies). */
  of(connection: object): ConnectionOutput | undefined {
    return this.outputs.get(connection);
  }

  private exceeded(connection: EngineConnection, kind: OutputLimitKind, unsent: number): void {
    this.metrics.edge.socketOutputLimitClosed(kind);
    const limit =
      kind === 'hard'
        ? `MAX_SOCKET_OUTPUT_BUFFER_BYTES=${this.limits.hardBytes}`
        : `MAX_SOCKET_OUTPUT_BUFFER_SOFT_BYTES=${this.limits.softBytes} for MAX_SOCKET_OUTPUT_BUFFER_SOFT_SECONDS=${this.limits.softSeconds}`;
    this.logger.warn(
      `closed connection ${connection.id} from ${connection.remoteAddress}: ${(unsent / MIB).toFixed(1)} MiB unsent, over ${limit} (a client that does not read its answers)`,
    );
    closeDiscarding(connection);
  }
}
