/**
 * A group id as one URL path segment, for REST clients (the SDK, the dashboard). URL parsers, browsers'
 * and Node's fetch alike (WHATWG URL), remove the segments `.` and `..` and their percent-encoded
 * spellings (`%2E`, `.%2e`, `%2E%2E`...), so `/v1/groups/%2E%2E/offsets` would reach `/v1/offsets`.
 * Kafka allows `.` and `..` as group ids, so they travel with each dot encoded twice (`%252E%252E`),
 * which no parser touches and the node reads back (groupIdOfPathSegment). A group whose id really is
 * `%2E` or `%2E%2E` is written with every character encoded (`%25%32%45`) so that it cannot be taken
 * for them. Everything else is `encodeURIComponent`.
 */
export function groupPathSegment(groupId: string): string {
  if (groupId === '.' || groupId === '..') return groupId.replace(/\./g, '%252E');
  if (/^(%2e){1,2}$/i.test(groupId))
    return [...groupId].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
  return encodeURIComponent(groupId);
}

/** The raw segments that stand for the group ids `.` and `..` (groupPathSegment). */
export const DOT_GROUP_SEGMENT = /^(%252E){1,2}$/i;

/** The group id a raw path segment names (throws URIError on broken percent-encoding, as decodeURIComponent). */
export function groupIdOfPathSegment(raw: string): string {
  return DOT_GROUP_SEGMENT.test(raw) ? '.'.repeat(raw.length / 5) : decodeURIComponent(raw);
}
