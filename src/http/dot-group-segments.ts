import { DOT_GROUP_SEGMENT } from '@cohort/protocol';

const GROUP_SEGMENT = /^\/v1\/groups\/([^/?]+)/;

/**
 * The group ids `.` and `..` arrive as `%252E` / `%252E%252E` (groupPathSegment: URL parsers remove
 * dot segments, encoded or not). This Express middleware, first of all, puts `%2E` in their place in
 * `request.url`, which Express routes by without removing dot segments and decodes into the
 * `:groupId` parameter; `originalUrl` keeps what the client sent, so a forwarded request travels
 * in the same form.
 */
export function dotGroupSegments(request: { url: string }, _response: unknown, next: () => void): void {
  const match = GROUP_SEGMENT.exec(request.url);
  if (match && DOT_GROUP_SEGMENT.test(match[1]))
    request.url = `/v1/groups/${'%2E'.repeat(match[1].length / 5)}${request.url.slice(match[0].length)}`;
  next();
}
