/**
 * The node cannot start on its DATA_DIR: another node holds it, or it cannot be written (full,
 * read-only, not ours). The message is one line that says which and what to do; main.ts prints it
 * without a stack trace, as it does a bad configuration.
 */
export class StorageStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageStartError';
  }
}
