/**
 * An answer whose JSON is made once and sent many times: what the server gives a request that keeps
 * getting the same answer (a steady member's ConsumerGroupHeartbeat). The answer is frozen (shared, it
 * must not change under anyone) and carries its JSON text under a symbol that is not enumerable, so
 * JSON.stringify, a spread, a deep equality and a reader of its fields all see the plain answer; the
 * transport that finds the text (`answerJson`) writes it instead of serializing the answer again.
 */
const ANSWER_JSON = Symbol('answerJson');

/** `answer` frozen with its JSON text kept (its values must be JSON values, none of them an object that could change). */
export function withAnswerJson<T extends object>(answer: T): Readonly<T> {
  Object.defineProperty(answer, ANSWER_JSON, { value: JSON.stringify(answer) });
  return Object.freeze(answer);
}

/** The JSON text `withAnswerJson` kept for `answer`, or undefined for any other value. */
export function answerJson(answer: unknown): string | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  return (answer as { [ANSWER_JSON]?: string })[ANSWER_JSON];
}
