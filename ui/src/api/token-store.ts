const KEY = 'cohort.token';

/**
 * The bearer token an operator typed in, kept for this browser tab only (sessionStorage): closing the
 * tab forgets it, and other sites cannot read it.
 */
export class TokenStore {
  constructor(private readonly storage: Storage) {}

  get(): string | null {
    return this.storage.getItem(KEY);
  }

  set(token: string): void {
    this.storage.setItem(KEY, token);
  }

  clear(): void {
    this.storage.removeItem(KEY);
  }
}
