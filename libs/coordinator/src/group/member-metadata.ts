import type { JoinGroupProtocol, JoinGroupResponse, SyncGroupResponse } from '@cohort/protocol';
import { canonicalJson } from './protocol-metadata';

export type JoinCallback = (response: JoinGroupResponse) => void;
export type SyncCallback = (response: SyncGroupResponse) => void;

export interface MemberInit {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocolType: string;
  protocols: JoinGroupProtocol[];
  serverAssignor?: string | null;
}

/**
 * One member of a classic group (Kafka's MemberMetadata.scala): identity, timeouts, supported
 * protocols in preference order and the current assignment (its parked replies are in the group's `ParkedReplies`).
 */
export class MemberMetadata {
  memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  readonly protocolType: string;
  supportedProtocols: JoinGroupProtocol[];
  /** The server-side assignor this member asked for in its last JoinGroup (docs/protocol.md), or null. */
  serverAssignor: string | null;
  /** The assignment of the current generation; null until one is stored. */
  assignment: unknown = null;
  /** Set while a member added by this rebalance has not yet received its first JoinGroup reply. */
  isNew = false;
  heartbeatSatisfied = false;
  /**
   * The connection of the member's last request: where pushes go, and what `connectionClosed` matches.
   * Set only through the shard's ConnectionIndex.
   */
  connectionId: string | undefined = undefined;

  constructor(init: MemberInit) {
    this.memberId = init.memberId;
    this.groupInstanceId = init.groupInstanceId;
    this.clientId = init.clientId;
    this.clientHost = init.clientHost;
    this.rebalanceTimeoutMs = init.rebalanceTimeoutMs;
    this.sessionTimeoutMs = init.sessionTimeoutMs;
    this.protocolType = init.protocolType;
    this.supportedProtocols = init.protocols;
    this.serverAssignor = init.serverAssignor ?? null;
  }

  get isStatic(): boolean {
    return this.groupInstanceId !== null;
  }

  protocolNames(): string[] {
    return this.supportedProtocols.map((p) => p.name);
  }

  /** The member's metadata for `protocol`; undefined when it does not support it. */
  metadata(protocol: string): unknown {
    return this.supportedProtocols.find((p) => p.name === protocol)?.metadata;
  }

  /** Same protocols, in the same order, with the same metadata (Kafka's `matches`). */
  matches(protocols: JoinGroupProtocol[]): boolean {
    if (protocols.length !== this.supportedProtocols.length) return false;
    return protocols.every((p, i) => {
      const mine = this.supportedProtocols[i];
      return p.name === mine.name && canonicalJson(p.metadata) === canonicalJson(mine.metadata);
    });
  }

  /** The member's vote: its first protocol, in its own preference order, that every member supports. */
  vote(candidates: ReadonlySet<string>): string {
    const choice = this.supportedProtocols.find((p) => candidates.has(p.name));
    if (!choice) throw new Error(`member ${this.memberId} supports none of the candidate protocols`);
    return choice.name;
  }
}
