import { readFileSync } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import { FileChangePoller } from './file-change-poller';
import { parseTokensFile, sha256, type TokenEntry } from './tokens-file';

/** How often the tokens file's metadata is polled; a revocation takes effect within this (plus the check). */
const POLL_INTERVAL_MS = 200;

export interface StaticTokenStoreEvents {
  /** The file changed and parsed: callers re-check open connections against the new set. */
  onReloaded(count: number): void;
  /** The file changed but does not parse: the previous set stays in force. */
  onReloadFailed(error: Error): void;
}

/**
 * The static bearer tokens of AUTH_TOKENS_FILE, held as SHA-256 digests. A token is looked up by
 * hashing it and comparing the digest with every entry in constant time (no early exit, no map
 * lookup keyed by a secret), so neither a token nor the number of matching bytes leaks through timing.
 * The file is polled (FileChangePoller), so a revoked token stops working within POLL_INTERVAL_MS.
 */
export class StaticTokenStore {
  private entries: TokenEntry[];
  private readonly poller: FileChangePoller;

  constructor(
    private readonly path: string,
    private readonly events?: StaticTokenStoreEvents,
  ) {
    this.poller = new FileChangePoller(path, POLL_INTERVAL_MS, () => this.reload());
    this.entries = parseTokensFile(readFileSync(path, 'utf8'));
  }

  /** The principal whose token this is, or null. */
  principalOf(token: string): string | null {
    return this.principalOfDigest(sha256(token));
  }

  /** As principalOf, for a digest kept from an earlier check (open connections keep only the digest). */
  principalOfDigest(digest: Buffer): string | null {
    let found: string | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.tokenSha256, digest) && found === null) found = entry.name;
    }
    return found;
  }

  get size(): number {
    return this.entries.length;
  }

  watch(): void {
    this.poller.start();
  }

  /** Reads the file again now (also what the watcher does). */
  reload(): void {
    try {
      this.entries = parseTokensFile(readFileSync(this.path, 'utf8'));
      this.events?.onReloaded(this.entries.length);
    } catch (error) {
      this.events?.onReloadFailed(error as Error);
    }
  }

  close(): void {
    this.poller.stop();
  }
}
