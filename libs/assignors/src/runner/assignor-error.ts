/**
 * The error a rebalance fails with when the assignor itself misbehaves (throws, or returns an invalid
 * assignment). It is a KafkaError so transports can answer with it, but it is the assignor's fault,
 * not the caller's: UNKNOWN_SERVER_ERROR, with the assignor's name and what was wrong.
 */
import { KafkaError } from '@cohort/protocol';

export type AssignorFailure = 'threw' | 'invalid-assignment';

export class AssignorError extends KafkaError {
  constructor(
    readonly assignorName: string,
    readonly failure: AssignorFailure,
    message: string,
    readonly violations: string[] = [],
    override readonly cause?: unknown,
  ) {
    super(-1, message, { assignor: assignorName, failure, violations });
    this.name = 'AssignorError';
  }
}
