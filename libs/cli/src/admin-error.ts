/**
 * A failed admin call, shaped like the SDK's `CohortError`: the Kafka error name and code from the REST
 * error body `{ statusCode, errorCode, error, message }`, and the HTTP status when there was one.
 */
export class AdminError extends Error {
  constructor(
    override readonly name: string,
    readonly code: number,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
