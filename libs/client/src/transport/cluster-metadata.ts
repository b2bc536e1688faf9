import { ErrorCode, type MetadataNode } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import { Backoff, type ResolvedRetry } from '../runtime/backoff';
import type { Timers } from '../runtime/timers';
import { normalizeUrl, type ConnectionPool } from './connection-pool';
import type { NodeConnection } from './node-connection';

export interface ClusterMetadataOptions {
  /** Kafka's `metadata.max.age.ms`: while members run, the node list is refreshed at least this often. */
  maxAgeMs: number;
  /** How long one Metadata request may take. */
  requestTimeoutMs: number;
}

/** How much a node is to be preferred for a lookup: connected, not tried yet, known to be down. */
const enum Rank {
  Connected = 0,
  Untried = 1,
  Down = 2,
}

/**
 * What a client knows of the cluster, as Kafka's client `Metadata` does: the live nodes and their
 * advertised URLs, learned with a Metadata request from the first node the client reaches, so that
 * `urls` is only a bootstrap list. Lookups (FindCoordinator, Metadata) go to any node it knows, never
 * to the bootstrap node in particular: losing it costs nothing once the others are known.
 *
 * The list is refreshed every `maxAgeMs` while a member needs it, and sooner when something suggests
 * the cluster changed (a lost connection, a failed lookup), with back-off; a node left out of an answer
 * is forgotten and its idle connection closed. When every known node is unreachable, the bootstrap
 * URLs are tried again beside them (Kafka's `metadata.recovery.strategy=rebootstrap`, KIP-899).
 */
export class ClusterMetadata {
  private known: MetadataNode[] = [];
  private refreshedAt: number | null = null;
  private updateRequested = false;
  private inFlight: Promise<void> | null = null;
  /** No refresh before this (back-off after a failed one). */
  private notBefore = 0;
  private readonly backoff: Backoff;
  /** URLs whose lookup failed, and when, until one succeeds: they are asked last. */
  private readonly failedAt = new Map<string, number>();
  /** Spreads lookups over equally good nodes. */
  private turn = 0;
  private users = 0;
  private timer: unknown = null;
  private closed = false;
  private readonly bootstrapUrls: string[];

  constructor(
    bootstrapUrls: string[],
    private readonly pool: ConnectionPool,
    private readonly timers: Timers,
    retry: ResolvedRetry,
    private readonly options: ClusterMetadataOptions,
  ) {
    if (bootstrapUrls.length === 0) throw new RangeError('CohortClient needs at least one URL in `urls`');
    this.bootstrapUrls = [...new Set(bootstrapUrls.map(normalizeUrl))];
    this.backoff = new Backoff(retry, timers);
  }

  /** The live nodes of the last Metadata answer (empty until the first one). */
  get nodes(): readonly MetadataNode[] {
    return this.known;
  }

  /** The connection to a node named by an answer (e.g. FindCoordinator's coordinator). */
  connection(url: string): NodeConnection {
    return this.pool.get(url);
  }

  /**
   * The node to send a lookup to (Kafka's `leastLoadedNode`): a connected one if there is one, else one
   * not tried yet, else one known to be down — the known nodes, or the bootstrap URLs before any is
   * known or when every known one is down. Equally good nodes take turns.
   */
  pick(): NodeConnection {
    const ranked = this.candidates().map((url) => ({ url, rank: this.rank(url) }));
    const best = Math.min(...ranked.map((r) => r.rank));
    const choice = ranked.filter((r) => r.rank === best);
    return this.pool.get(choice[this.turn++ % choice.length].url);
  }

  /** A lookup through `url` failed: ask other nodes first for a while, and refresh the list. */
  failed(url: string): void {
    this.failedAt.set(normalizeUrl(url), this.timers.now());
    this.requestUpdate();
  }

  /** A lookup through `url` was answered. */
  succeeded(url: string): void {
    this.failedAt.delete(normalizeUrl(url));
  }

  /**
   * Closes idle connections to URLs that are no known node (a bootstrap alias once the nodes are
   * known, a node that left): nothing keeps depending on them. Lookups call it as they finish.
   */
  tidy(): void {
    if (this.known.length > 0) this.pool.prune(new Set(this.known.map((n) => n.url)));
  }

  /** Something suggests the cluster changed: refresh at the next chance (Kafka's `requestUpdate`). */
  requestUpdate(): void {
    this.updateRequested = true;
  }

  /**
   * Refreshes the node list when it is due — never fetched, older than `maxAgeMs`, or asked for — and
   * not in back-off after a failure; one refresh at a time. Never rejects: a failure only backs off.
   */
  refreshIfDue(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.inFlight) return this.inFlight;
    const now = this.timers.now();
    const due = this.refreshedAt === null || this.updateRequested || now - this.refreshedAt >= this.options.maxAgeMs;
    if (!due || now < this.notBefore) return Promise.resolve();
    this.inFlight = this.refresh().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  /** A member starts needing the list: refresh it periodically until the returned release is called. */
  retain(): () => void {
    this.users++;
    if (this.users === 1) this.schedule();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.users--;
      if (this.users === 0) this.cancelTimer();
    };
  }

  close(): void {
    this.closed = true;
    this.cancelTimer();
  }

  private candidates(): string[] {
    const urls = this.known.map((n) => n.url);
    if (urls.length === 0) return this.bootstrapUrls;
    if (urls.every((url) => this.rank(url) === Rank.Down))
      return [...urls, ...this.bootstrapUrls.filter((url) => !urls.includes(url))];
    return urls;
  }

  private rank(url: string): Rank {
    const connection = this.pool.peek(url);
    if (this.failedAt.has(url)) return connection?.connected ? Rank.Untried : Rank.Down;
    if (connection?.connected) return Rank.Connected;
    return connection?.downSince != null ? Rank.Down : Rank.Untried;
  }

  private async refresh(): Promise<void> {
    const connection = this.pick();
    try {
      const answer = await connection.request('Metadata', { topics: [] }, this.options.requestTimeoutMs, {
        failFast: true,
      });
      if (answer.errorCode !== ErrorCode.NONE) throw CohortError.fromResponse(answer as never);
      this.succeeded(connection.url);
      this.learn(answer.nodes);
      this.backoff.reset();
      this.notBefore = 0;
    } catch {
      this.failedAt.set(connection.url, this.timers.now());
      this.notBefore = this.timers.now() + this.backoff.next();
    }
  }

  private learn(nodes: MetadataNode[] | undefined): void {
    this.refreshedAt = this.timers.now();
    this.updateRequested = false;
    const valid = (Array.isArray(nodes) ? nodes : [])
      .filter((n) => Number.isInteger(n?.nodeId) && typeof n.url === 'string' && n.url !== '')
      .map((n) => ({ nodeId: n.nodeId, url: normalizeUrl(n.url) }));
    // A node of an older version lists none: keep using what we have (the bootstrap URLs).
    if (valid.length === 0) return;
    this.known = valid;
    const urls = new Set(valid.map((n) => n.url));
    for (const url of [...this.failedAt.keys()]) if (!urls.has(url)) this.failedAt.delete(url);
    this.tidy();
  }

  private schedule(): void {
    this.cancelTimer();
    if (this.closed || this.users === 0) return;
    const now = this.timers.now();
    const dueAt = this.refreshedAt === null ? now : this.refreshedAt + this.options.maxAgeMs;
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = null;
        void this.refreshIfDue().then(() => this.schedule());
      },
      Math.max(0, dueAt - now, this.notBefore - now),
    );
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
