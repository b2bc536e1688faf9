/**
 * How deep a request may nest, checked by both transports as soon as a payload is parsed and before
 * anything walks it: validation (class-transformer recurses once per level and overflows the stack a
 * few thousand levels down), logging, forwarding. No field of any request needs more than a few
 * levels; opaque JSON (subscription userData, assignments) is held to 64 levels by the coordinator, so
 * this bound leaves room for that inside the request's own envelope.
 */
export const MAX_REQUEST_DEPTH = 100;

/**
 * Why `value` nests deeper than `maxDepth` levels of objects and arrays, or null when it does not.
 * Iterative with an explicit stack, so any input, however deep, is measured without recursion; a
 * binary attachment (socket.io can carry Buffers) is one leaf, not a million.
 */
export function requestDepthProblem(value: unknown, maxDepth = MAX_REQUEST_DEPTH): string | null {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) continue;
    if (depth >= maxDepth) return `the request is nested deeper than ${maxDepth} levels`;
    // The object's own enumerable values, as Object.values gives them, without an array of them per object.
    if (Array.isArray(v)) {
      for (const child of v as unknown[]) pushNested(values, depths, child, depth + 1);
    } else {
      const object = v as Record<string, unknown>;
      for (const key in object) if (hasOwn.call(object, key)) pushNested(values, depths, object[key], depth + 1);
    }
  }
  return null;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Queues `child` to be measured at `depth` if it can nest (a leaf has no depth to measure). */
function pushNested(values: unknown[], depths: number[], child: unknown, depth: number): void {
  if (child === null || typeof child !== 'object') return;
  values.push(child);
  depths.push(depth);
}
