/**
 * JSON.stringify without recursion, for the fuzzer's own values: the same text for everything
 * JSON.stringify accepts without a replacer (toJSON included), at any depth.
 *
 * Why not JSON.stringify: V8 serialises each level on the native stack, and how many levels fit is
 * not fixed. In one process the same 3,006-level value went through at the start of a run and
 * overflowed after a few dozen other cases (seed 110488163, case 70), so deep cases became
 * "unsendable" more and more often as a run went on. This loop keeps its path on the heap instead.
 */

type Frame =
  | { kind: 'array'; value: readonly unknown[]; next: number }
  | { kind: 'object'; value: object; keys: string[]; next: number; wrote: boolean };

/** The JSON text of `value`, or undefined where JSON.stringify gives undefined (undefined, a function, a symbol). */
export function jsonText(value: unknown): string | undefined {
  const out: string[] = [];
  const path = new Set<object>();
  const stack: Frame[] = [];

  /** Writes a value, or opens its frame; false when the value is not serialisable (omitted / null). */
  const write = (raw: unknown, key: string): boolean => {
    const v = toJsonValue(raw, key);
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return false;
    if (v === null) out.push('null');
    else if (typeof v === 'string' || typeof v === 'boolean') out.push(JSON.stringify(v));
    else if (typeof v === 'number') out.push(Number.isFinite(v) ? JSON.stringify(v) : 'null');
    else if (typeof v === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
    else {
      if (path.has(v)) throw new TypeError('Converting circular structure to JSON');
      path.add(v);
      if (Array.isArray(v)) {
        out.push('[');
        stack.push({ kind: 'array', value: v, next: 0 });
      } else {
        out.push('{');
        stack.push({ kind: 'object', value: v, keys: Object.keys(v), next: 0, wrote: false });
      }
    }
    return true;
  };

  if (!write(value, '')) return undefined;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.kind === 'array') {
      if (frame.next === frame.value.length) {
        out.push(']');
        close(frame.value);
        continue;
      }
      const index = frame.next++;
      if (index > 0) out.push(',');
      if (!write(frame.value[index], String(index))) out.push('null');
    } else {
      if (frame.next === frame.keys.length) {
        out.push('}');
        close(frame.value);
        continue;
      }
      const key = frame.keys[frame.next++];
      const at = out.length;
      out.push(`${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`);
      if (write((frame.value as Record<string, unknown>)[key], key)) frame.wrote = true;
      else out.length = at; // an undefined member is left out, as JSON.stringify does
    }
  }
  return out.join('');

  function close(container: object): void {
    stack.pop();
    path.delete(container);
  }
}

/** What JSON.stringify serialises in place of `value`: its toJSON(), or a boxed primitive's value. */
function toJsonValue(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return (toJSON as (key: string) => unknown).call(value, key);
    if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  }
  if (typeof value === 'bigint' && typeof (BigInt.prototype as { toJSON?: unknown }).toJSON === 'function') {
    return (BigInt.prototype as unknown as { toJSON: () => unknown }).toJSON.call(value);
  }
  return value;
}
