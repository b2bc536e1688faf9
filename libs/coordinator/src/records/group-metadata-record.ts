import type { RebalanceView } from '../ports/group-coordinator.api';
import {
  encodeJson,
  isInteger,
  isNullableInteger,
  isNullableString,
  isString,
  parseJson,
  RecordDecodeError,
  requireField,
  requireObject,
} from './record-codec';

/** One member in a GroupMetadata record: its subscription and assignment for the chosen protocol. */
export interface GroupMetadataMemberRecord {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeout: number;
  sessionTimeout: number;
  subscription: unknown;
  assignment: unknown;
  /** Cohort: the server-side assignor the member asked for (docs/protocol.md). */
  serverAssignor: string | null;
}

/** Kafka's GroupMetadataValue v3 fields, plus the generation's server-side assignor (Cohort). */
export interface GroupMetadataRecord {
  protocolType: string;
  generation: number;
  protocol: string | null;
  leader: string | null;
  currentStateTimestamp: number | null;
  members: GroupMetadataMemberRecord[];
  serverAssignor: string | null;
  /** Cohort: the group's recent rebalances, oldest first (bounded by the history's capacity). */
  rebalances?: RebalanceView[];
}

const WRITE_VERSION = 3;
const WHAT = 'group metadata value';

export function encodeGroupMetadataValue(value: GroupMetadataRecord): Buffer {
  return encodeJson({ v: WRITE_VERSION, ...value });
}

export function decodeGroupMetadataValue(bytes: Buffer): GroupMetadataRecord {
  const o = requireObject(parseJson(bytes, 'value'), WHAT);
  const members = o.members;
  if (!Array.isArray(members)) throw new RecordDecodeError(`${WHAT}.members must be an array`);
  return {
    protocolType: requireField(o, 'protocolType', isString, WHAT),
    generation: requireField(o, 'generation', isInteger, WHAT),
    protocol: requireField(o, 'protocol', isNullableString, WHAT),
    leader: requireField(o, 'leader', isNullableString, WHAT),
    currentStateTimestamp:
      o.currentStateTimestamp === undefined ? null : requireField(o, 'currentStateTimestamp', isNullableInteger, WHAT),
    members: members.map(decodeMember),
    serverAssignor: o.serverAssignor === undefined ? null : requireField(o, 'serverAssignor', isNullableString, WHAT),
    rebalances: Array.isArray(o.rebalances) ? o.rebalances.flatMap(decodeRebalance) : [],
  };
}

/** A history entry that does not decode is dropped: the history is for operators, never worth a lost group. */
function decodeRebalance(raw: unknown): RebalanceView[] {
  if (raw === null || typeof raw !== 'object') return [];
  const r = raw as Record<string, unknown>;
  const ok =
    isInteger(r.generationId) &&
    isString(r.reason) &&
    isInteger(r.startedAt) &&
    isNullableInteger(r.completedAt) &&
    isNullableInteger(r.durationMs) &&
    isInteger(r.members) &&
    isNullableString(r.protocol);
  if (!ok) return [];
  const { generationId, reason, startedAt, completedAt, durationMs, members, protocol } = r as unknown as RebalanceView;
  return [{ generationId, reason, startedAt, completedAt, durationMs, members, protocol }];
}

function decodeMember(raw: unknown): GroupMetadataMemberRecord {
  const what = `${WHAT} member`;
  const m = requireObject(raw, what);
  return {
    memberId: requireField(m, 'memberId', isString, what),
    groupInstanceId:
      m.groupInstanceId === undefined ? null : requireField(m, 'groupInstanceId', isNullableString, what),
    clientId: requireField(m, 'clientId', isString, what),
    clientHost: requireField(m, 'clientHost', isString, what),
    rebalanceTimeout: requireField(m, 'rebalanceTimeout', isInteger, what),
    sessionTimeout: requireField(m, 'sessionTimeout', isInteger, what),
    subscription: m.subscription ?? null,
    assignment: m.assignment ?? null,
    serverAssignor: m.serverAssignor === undefined ? null : requireField(m, 'serverAssignor', isNullableString, what),
  };
}
