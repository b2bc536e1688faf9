import { ErrorCode } from '@cohort/protocol';
import { CohortError, type RestErrorBody } from '../errors/cohort-error';

export type TokenSource = string | (() => string | Promise<string>);

export interface RestTransportOptions {
  /** Nodes to talk to; any node answers the REST API (group calls are forwarded to the coordinator). */
  urls: string[];
  /** Bearer token, or a function asked before every request (so a refreshed JWT is picked up). */
  token?: TokenSource;
  /** Defaults to the global `fetch` (Node 20+, browsers). */
  fetch?: typeof fetch;
  /** Per request and per node; default 30 s. */
  timeoutMs?: number;
}

export interface RestCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Requests a node may receive twice without harm: after a timeout they go on to the next node. */
const IDEMPOTENT = new Set(['GET', 'PUT', 'DELETE']);

/**
 * JSON over HTTP to the first node that answers. A node that cannot be reached (refused, reset, DNS,
 * timeout) is skipped for the next one; an HTTP answer, error or not, is final. The node that answered
 * last is tried first next time, so a dead first URL costs one failed connect, not one per call.
 */
export class RestTransport {
  private readonly urls: string[];
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private preferred = 0;

  constructor(private readonly options: RestTransportOptions) {
    const urls = (options.urls ?? []).map((url) => url.replace(/\/+$/, ''));
    if (urls.length === 0 || urls.some((url) => !/^https?:\/\/[^/]/.test(url))) {
      throw CohortError.of(
        'INVALID_REQUEST',
        `urls must list at least one http(s) URL, got ${JSON.stringify(options.urls)}`,
      );
    }
    const globalFetch = typeof globalThis.fetch === 'function' ? globalThis.fetch.bind(globalThis) : undefined;
    const chosen = options.fetch ?? globalFetch;
    if (!chosen)
      throw CohortError.of('INVALID_REQUEST', 'no fetch: pass options.fetch on a runtime without a global fetch');
    this.urls = urls;
    this.fetch = chosen;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async request<T>(call: RestCall): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const token = await this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const failures: string[] = [];
    let timedOut = false;
    for (let attempt = 0; attempt < this.urls.length; attempt++) {
      const index = (this.preferred + attempt) % this.urls.length;
      const url = this.urls[index] + call.path + queryString(call.query);
      let response: Response;
      try {
        response = await this.fetch(url, {
          method: call.method,
          headers,
          body,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (error) {
        const timeout = isTimeout(error);
        timedOut ||= timeout;
        failures.push(`${this.urls[index]}: ${timeout ? `no answer within ${this.timeoutMs} ms` : describe(error)}`);
        if (timeout && !IDEMPOTENT.has(call.method)) break;
        continue;
      }
      this.preferred = index;
      return parse<T>(response, `${call.method} ${call.path}`);
    }
    const what = `${call.method} ${call.path}: no node answered (${failures.join('; ')})`;
    throw timedOut ? CohortError.of('REQUEST_TIMED_OUT', what) : CohortError.of('NETWORK_EXCEPTION', what);
  }

  private async token(): Promise<string | undefined> {
    const { token } = this.options;
    if (typeof token !== 'function') return token;
    try {
      return await token();
    } catch (error) {
      throw CohortError.of('SASL_AUTHENTICATION_FAILED', `the token function failed: ${describe(error)}`, error);
    }
  }
}

async function parse<T>(response: Response, what: string): Promise<T> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (response.ok) {
    if (json === undefined && text !== '') {
      throw new CohortError(
        ErrorCode.UNKNOWN_SERVER_ERROR,
        `${what}: the answer is not JSON (HTTP ${response.status})`,
        { status: response.status },
      );
    }
    return json as T;
  }
  const body = typeof json === 'object' && json !== null ? (json as RestErrorBody) : { message: text || undefined };
  throw CohortError.fromRest(body, response.status);
}

function queryString(query: RestCall['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

function isTimeout(error: unknown): boolean {
  // Duck-typed: the DOMException that AbortSignal.timeout raises may come from another realm.
  const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  return name === 'TimeoutError' || name === 'AbortError';
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Node's fetch hides the reason (ECONNREFUSED, ENOTFOUND...) in `cause`.
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? ((cause as { code?: string }).code ?? cause.message) : undefined;
  return detail ? `${error.message} (${detail})` : error.message;
}
