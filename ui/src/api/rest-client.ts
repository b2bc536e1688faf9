import { RestError } from './rest-error';
import type { TokenStore } from './token-store';

/**
 * The dashboard's only way to the node: REST on the origin that served the page, with the operator's
 * bearer token when one was given. A 401 tells the listeners, so the page can ask for a token.
 */
export class RestClient {
  private readonly unauthorizedListeners = new Set<() => void>();

  constructor(readonly tokens: TokenStore) {}

  onUnauthorized(listener: () => void): () => void {
    this.unauthorizedListeners.add(listener);
    return () => this.unauthorizedListeners.delete(listener);
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  delete(path: string): Promise<void> {
    return this.request<void>('DELETE', path);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = this.tokens.get();
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // no-cache: always ask, but let the node answer 304 to an unchanged list (its ETag), which keeps
    // polling a 10,000-group list cheap on the wire.
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-cache',
    });
    if (response.status === 401) for (const listener of this.unauthorizedListeners) listener();
    if (!response.ok) throw await RestError.fromResponse(response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
}
