import type { AdminApi } from '../admin-api';
import type { Output } from '../output/output';

/** What every command gets: the admin client for the chosen node and the chosen output. */
export interface CommandContext {
  admin(): AdminApi;
  output(): Output;
}

/** Bad usage found after parsing (conflicting or missing flags): exit status 2 with the command's usage. */
export class UsageError extends Error {}
