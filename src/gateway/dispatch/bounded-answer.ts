import { ErrorCode, errorName } from '@cohort/protocol';

/**
 * The largest answer a node sends: a JSON string this long is far below what V8 can make (2^29 - 24
 * characters), whose RangeError, thrown while serializing an answer, used to take the whole process
 * down (one ConsumerGroupDescribe naming a group of 450 KB 1,500 times made a 670 MB answer).
 */
export const MOST_ANSWER_CHARS = 256 * 1024 * 1024;

/**
 * Whether the JSON of `value` may be longer than `limit` characters, found by walking it with that
 * budget rather than by serializing it: the walk stops as soon as the budget is spent, so an answer
 * too large to send costs no more than the budget to find out, and makes no string. Strings count their
 * length and quotes (escapes are not counted: the serializer's own limit still holds for those).
 */
export function longerThan(value: unknown, limit: number): boolean {
  let left = limit;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') left -= item.length + 3;
    else if (typeof item === 'number') left -= 12;
    else if (item === null || typeof item !== 'object') left -= 6;
    else if (Array.isArray(item)) {
      left -= item.length + 2;
      for (let i = 0; i < item.length; i++) stack.push(item[i]);
    } else {
      for (const key in item) {
        left -= key.length + 4;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
    if (left < 0) return true;
  }
  return false;
}

/**
 * What goes instead of an answer too large to send: a small INVALID_REQUEST naming the limit, so the
 * client can ask for less (fewer groups at once). The request's effects, if any, stand.
 */
export function tooLargeAnswer(
  limit: number,
  why: string,
): { errorCode: number; errorName: string; errorMessage: string } {
  return {
    errorCode: ErrorCode.INVALID_REQUEST,
    errorName: errorName(ErrorCode.INVALID_REQUEST),
    errorMessage: `the answer would be longer than ${limit} bytes (${why}); ask for less at once`,
  };
}
