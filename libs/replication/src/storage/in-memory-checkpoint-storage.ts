import type { CheckpointStorage } from './checkpoint-storage.port';

/**
 * Checkpoints kept in memory: embedded tests and the simulator, where the object stands for a node's
 * disk and outlives the node's crashes (every write is atomic and durable, as tmp + fsync + rename is).
 */
export class InMemoryCheckpointStorage implements CheckpointStorage {
  private readonly files = new Map<string, string>();

  read(name: string): string | null {
    return this.files.get(name) ?? null;
  }

  write(name: string, content: string): void {
    this.files.set(name, content);
  }

  remove(name: string): void {
    this.files.delete(name);
  }

  names(): string[] {
    return [...this.files.keys()].sort();
  }
}
