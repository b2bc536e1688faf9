import { join } from 'node:path';
import { AtomicJsonFile } from '../../common/atomic-json-file';
import type { ClaimOutcome, CreatedKind, CreationLedger } from './creation-ledger.port';

type Owners = Record<CreatedKind, Map<string, string>>;

/**
 * Embedded mode's ledger: `created.json` under DATA_DIR (name → principal per kind), replaced
 * atomically on every change, as `acls.json` is. One process owns the file. A file that does not parse
 * stops the node, naming it: starting with an empty ledger would reset every principal's count.
 */
export class FileCreationLedger implements CreationLedger {
  private readonly file: AtomicJsonFile;
  private owners: Owners = { group: new Map(), topic: new Map() };
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string) {
    this.file = new AtomicJsonFile(join(dataDir, 'created.json'));
    const parsed = this.file.read() as { groups?: unknown; topics?: unknown } | undefined;
    if (parsed === undefined) return;
    this.owners = {
      group: ownersOf(parsed.groups, `${this.file.path}: groups`),
      topic: ownersOf(parsed.topics, `${this.file.path}: topics`),
    };
  }

  claim(kind: CreatedKind, principal: string, name: string, max: number): Promise<ClaimOutcome> {
    return this.serially(async () => {
      const owners = this.owners[kind];
      if (owners.get(name) === principal) return 'held';
      if (countOf(owners, principal) >= max) return 'full';
      await this.persist(kind, (next) => next.set(name, principal));
      return 'claimed';
    });
  }

  release(kind: CreatedKind, name: string): Promise<void> {
    return this.serially(async () => {
      if (this.owners[kind].has(name)) await this.persist(kind, (next) => next.delete(name));
    });
  }

  held(kind: CreatedKind, principal: string): Promise<string[]> {
    return Promise.resolve([...this.owners[kind]].filter(([, owner]) => owner === principal).map(([name]) => name));
  }

  async close(): Promise<void> {
    await this.queue;
  }

  private serially<T>(change: () => Promise<T>): Promise<T> {
    const result = this.queue.then(change);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** The file first, then the copy: a failed write leaves the count as it is on disk. */
  private async persist(kind: CreatedKind, change: (next: Map<string, string>) => void): Promise<void> {
    const next = new Map(this.owners[kind]);
    change(next);
    const owners = { ...this.owners, [kind]: next };
    await this.file.save({
      version: 1,
      groups: Object.fromEntries(owners.group),
      topics: Object.fromEntries(owners.topic),
    });
    this.owners = owners;
  }
}

function countOf(owners: Map<string, string>, principal: string): number {
  let count = 0;
  for (const owner of owners.values()) if (owner === principal) count++;
  return count;
}

function ownersOf(value: unknown, where: string): Map<string, string> {
  if (value === undefined) return new Map();
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${where} is not an object of name → principal`);
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [name, owner] of entries)
    if (typeof owner !== 'string') throw new Error(`${where}: '${name}' has no principal`);
  return new Map(entries as [string, string][]);
}
