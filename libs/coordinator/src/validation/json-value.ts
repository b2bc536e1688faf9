/**
 * Protocol metadata and assignments are opaque JSON (docs/protocol.md), stored in GroupMetadata records and
 * compared by their canonical JSON. A value that JSON.stringify cannot write back as it came (nested
 * deeper than the stack allows, binary, a BigInt, NaN, a class instance) would fail only later, inside a
 * write or a comparison, with the group's other members already waiting on it; so it is refused up front.
 */

/** Far beyond any real subscription or assignment (a few levels), far below what the stack can take. */
export const MAX_JSON_DEPTH = 64;

/** Why `value` is not plain JSON of at most MAX_JSON_DEPTH levels, or null when it is. `undefined` means absent. */
export function jsonProblem(value: unknown): string | null {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (v === null || v === undefined || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `${String(v)} is not a JSON number`;
      continue;
    }
    if (typeof v !== 'object') return `a ${typeof v} is not JSON`;
    if (depth >= MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null)
      return `a ${(v as object).constructor?.name ?? 'non-plain object'} is not JSON`;
    for (const key of Object.keys(v)) stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1 });
  }
  return null;
}
