import { groupPathSegment } from '@cohort/protocol';
import { RestClient } from './rest-client';
import { TokenStore } from './token-store';

/** The one client of the page, bound to this tab's token. */
export const api = new RestClient(new TokenStore(window.sessionStorage));

/** A group id as one path segment (ids may hold '/', '#', spaces, or be '.' or '..': groupPathSegment). */
export function groupPath(groupId: string, rest = ''): string {
  return `/v1/groups/${groupPathSegment(groupId)}${rest}`;
}
