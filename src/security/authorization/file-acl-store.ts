import { join } from 'node:path';
import type { AclBinding } from '@cohort/protocol';
import { bindingKey, compareBindings, validateBinding } from '@cohort/security';
import { AtomicJsonFile } from '../../common/atomic-json-file';
import type { AclStore } from './acl-store.port';

/**
 * Embedded mode's bindings: `acls.json` under DATA_DIR, replaced atomically on every change. One
 * process owns the file, so there is nothing to watch. A file that does not hold valid bindings stops
 * the node (naming the file and the binding) rather than start with fewer ACLs than configured.
 */
export class FileAclStore implements AclStore {
  private readonly file: AtomicJsonFile;
  private bindings = new Map<string, AclBinding>();
  /** Changes one after another, so that each starts from the set the previous one left. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string) {
    this.file = new AtomicJsonFile(join(dataDir, 'acls.json'));
  }

  async load(): Promise<AclBinding[]> {
    const parsed = this.file.read() as { acls?: unknown } | undefined;
    if (parsed === undefined) return [];
    if (!Array.isArray(parsed?.acls))
      throw new Error(`${this.file.path} is not an ACL file ({ "acls": [...] }); move it away to start with no ACLs`);
    const loaded = new Map<string, AclBinding>();
    parsed.acls.forEach((value: unknown, index: number) => {
      try {
        const binding = validateBinding(value, `acls.${index}`);
        loaded.set(bindingKey(binding), binding);
      } catch (error) {
        throw new Error(`${this.file.path}: ${(error as Error).message}`);
      }
    });
    this.bindings = loaded;
    return this.all();
  }

  add(bindings: readonly AclBinding[]): Promise<AclBinding[]> {
    return this.serially(async () => {
      const next = new Map(this.bindings);
      for (const binding of bindings) next.set(bindingKey(binding), binding);
      await this.persist(next);
      return this.all();
    });
  }

  remove(bindings: readonly AclBinding[]): Promise<{ removed: AclBinding[]; all: AclBinding[] }> {
    return this.serially(async () => {
      const next = new Map(this.bindings);
      const removed = bindings.filter((binding) => next.delete(bindingKey(binding)));
      if (removed.length > 0) await this.persist(next);
      return { removed, all: this.all() };
    });
  }

  watch(): void {
    // One process, one file: every change is made here.
  }

  async close(): Promise<void> {}

  private serially<T>(change: () => Promise<T>): Promise<T> {
    const result = this.queue.then(change);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** The file first, then the copy: a failed write leaves the node enforcing what is on disk. */
  private async persist(next: Map<string, AclBinding>): Promise<void> {
    await this.file.save({ version: 1, acls: [...next.values()].sort(compareBindings) });
    this.bindings = next;
  }

  private all(): AclBinding[] {
    return [...this.bindings.values()].sort(compareBindings);
  }
}
