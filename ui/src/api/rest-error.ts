/** A REST error as the node answers it: `{ statusCode, errorCode, error, message }`, error being the Kafka name. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    /** Kafka error name, e.g. GROUP_ID_NOT_FOUND; HTTP_<status> when the body was not Cohort's. */
    readonly errorName: string,
    readonly errorCode: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'RestError';
  }

  /** What the page prints: the Kafka name first, as operators search for it. */
  describe(): string {
    return this.message && this.message !== this.errorName ? `${this.errorName}: ${this.message}` : this.errorName;
  }

  static async fromResponse(response: Response): Promise<RestError> {
    const body = (await response.json().catch(() => null)) as {
      errorCode?: unknown;
      error?: unknown;
      message?: unknown;
    } | null;
    const name = typeof body?.error === 'string' ? body.error : `HTTP_${response.status}`;
    const code = typeof body?.errorCode === 'number' ? body.errorCode : null;
    const message = Array.isArray(body?.message)
      ? body.message.join('; ')
      : typeof body?.message === 'string'
        ? body.message
        : response.statusText;
    return new RestError(response.status, name, code, message);
  }
}

/** Any failure as one line: a RestError with its Kafka name, a network failure as such. */
export function describeError(error: unknown): string {
  if (error instanceof RestError) return error.describe();
  if (error instanceof TypeError) return `NETWORK_EXCEPTION: the node did not answer (${error.message})`;
  return error instanceof Error ? error.message : String(error);
}
