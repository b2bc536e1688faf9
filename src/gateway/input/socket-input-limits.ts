import { Injectable, Logger } from '@nestjs/common';
import { CohortConfig } from '../../config/cohort-config';
import { CohortMetrics } from '../../metrics/cohort-metrics';
import { closeDiscarding, type EngineConnection, partialInputOf } from '../socket-io-internals';
import { InputBudget } from './input-budget';

const MIB = 1024 * 1024;

/**
 * What all socket connections together hold of messages not yet whole, held to MAX_SOCKET_INPUT_BUFFER_BYTES
 * (InputBudget): a websocket frame is kept until its whole payload has arrived, so a client that sends the
 * start of one and stalls holds up to MAX_PAYLOAD_BYTES of the node for as long as it stays connected.
 * Past the budget, the connections holding the most are closed, counted in
 * `cohort_socket_input_limit_closes_total` and logged as one warning each.
 *
 * Watched from the engine.io connection's first packet (CohortIoAdapter), so it covers every client,
 * authenticated or not: the bytes arrive before socket.io's CONNECT, and so before any credential.
 */
@Injectable()
export class SocketInputLimits {
  private readonly logger = new Logger('SocketInputLimits');
  private readonly limitBytes: number;
  private readonly budget: InputBudget<EngineConnection>;

  constructor(
    config: CohortConfig,
    private readonly metrics: CohortMetrics,
  ) {
    this.limitBytes = config.socketInputBufferBytes;
    this.budget = new InputBudget(this.limitBytes);
  }

  watch(connection: EngineConnection): void {
    if (this.limitBytes === 0) return;
    const input = partialInputOf(connection);
    if (input === null) return;
    // After ws's own listener (registered when the upgrade made the socket): the chunk is taken by then.
    input.tcp.on('data', () => this.settle(this.budget.update(connection, input.held())));
    connection.once('close', () => this.budget.update(connection, 0));
  }

  private settle(evicted: readonly { key: EngineConnection; held: number }[]): void {
    for (const { key: connection, held } of evicted) {
      this.metrics.edge.socketInputLimitClosed();
      this.logger.warn(
        `closed connection ${connection.id} from ${connection.remoteAddress}: ${(held / MIB).toFixed(1)} MiB of a message not yet whole, ` +
          `while all connections held more than MAX_SOCKET_INPUT_BUFFER_BYTES=${this.limitBytes} (a client that starts large messages and stalls)`,
      );
      closeDiscarding(connection);
    }
  }
}
