import { encodeJson } from './record-codec';

/**
 * The keys of KIP-848's group records, consumer (types 3 to 8) and share (10 to 14) alike: `[type,
 * groupId]` for a record of the whole group, `[type, groupId, memberId]` for one of a member's. Each
 * group type names its record types in a table of its own; the shape of a key is shared, so one encoder
 * and one decoder serve both.
 */
export function groupRecordKey(type: number, groupId: string, memberId?: string): Buffer {
  return encodeJson(memberId === undefined ? [type, groupId] : [type, groupId, memberId]);
}

/** A decoded key: one of the group-wide record types `G`, or one of the member record types `M`. */
export type GroupRecordKey<G extends string, M extends string> =
  { type: G; groupId: string } | { type: M; groupId: string; memberId: string };

/**
 * The key `parsed` (a decoded key array) names, when its type is in `groupTypes` (two elements) or
 * `memberTypes` (three); undefined for a key of any other kind, so a loader can ask each group type in turn.
 */
export function decodeGroupRecordKey<G extends string, M extends string>(
  parsed: unknown,
  groupTypes: ReadonlyMap<number, G>,
  memberTypes: ReadonlyMap<number, M>,
): GroupRecordKey<G, M> | undefined {
  if (!Array.isArray(parsed) || typeof parsed[1] !== 'string') return undefined;
  const [type, groupId, memberId] = parsed as [unknown, string, unknown];
  if (typeof type !== 'number') return undefined;
  if (parsed.length === 2) {
    const name = groupTypes.get(type);
    return name === undefined ? undefined : { type: name, groupId };
  }
  if (parsed.length !== 3 || typeof memberId !== 'string') return undefined;
  const name = memberTypes.get(type);
  return name === undefined ? undefined : { type: name, groupId, memberId };
}
