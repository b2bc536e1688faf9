import type { LogFn, LoggerOptions } from 'pino';

/** C0 and C1 control characters, DEL, and the two Unicode line separators some terminals break lines at. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** Those of them a JSON string may hold as they are (JSON escapes the C0 ones itself). */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A string with every control character written as an escape (`\n`, `\u001b`), so that text a client
 * chose (a group id, a client id, a URL) cannot end a log line and start a forged one, or move a
 * terminal's cursor, when it is printed as it is.
 */
export function escapeControlCharacters(text: string, which: RegExp = CONTROL): string {
  return text.replace(which, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function escapeValue(value: unknown, which: RegExp, depth: number): unknown {
  if (typeof value === 'string') return which.test(value) ? escapeControlCharacters(value, which) : value;
  if (typeof value !== 'object' || value === null || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => escapeValue(item, which, depth + 1));
  // Only plain records are rebuilt: an instance (an Error and its stack, pino-http's request and
  // response, which its serializers read through getters such as headersSent) goes on as it is. Node's
  // HTTP parser has already refused control characters in a request's URL and headers.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const fields: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) fields[key] = escapeValue(item, which, depth + 1);
  return fields;
}

function escapingHooks(which: RegExp): NonNullable<LoggerOptions['hooks']> {
  return {
    logMethod(args: Parameters<LogFn>, method: LogFn): void {
      const safe = (args as unknown[]).map((arg) => escapeValue(arg, which, 0));
      (method as (...values: unknown[]) => void).apply(this, safe);
    },
  };
}

/**
 * pino's `logMethod` hook for pino-pretty's lines: it prints the message and the fields named in its
 * messageFormat (`context`) as they are, and nested fields as JSON, which leaves U+2028 and U+2029 as
 * they are; so every string is escaped here (an Error keeps its stack's lines).
 */
export const TERMINAL_SAFE_HOOKS = escapingHooks(CONTROL);

/**
 * The hook for JSON lines: pino escapes the C0 controls (`\n` cannot end a line), but DEL, the C1
 * controls (a terminal that runs `tail -f` on the file obeys them) and U+2028 / U+2029 are valid in a
 * JSON string, so they are escaped here.
 */
export const JSON_SAFE_HOOKS = escapingHooks(RAW_IN_JSON);
