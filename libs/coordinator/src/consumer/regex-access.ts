import type { TopicAccessPort } from '../ports/topic-access.port';
import type { ConsumerGroupMember } from './consumer-group-member';

/** Who a regex member's heartbeats come from: the principal authentication found, and its address. */
export interface MemberCaller {
  principal: string;
  host: string;
}

/** Bounds the cache of ACL answers (it is emptied when full, as the compiled patterns are). */
const MAX_ANSWERS = 100_000;
/** What a member whose caller this node has not met yet was given: never equal to a real fingerprint. */
const UNKNOWN = '\u0001unknown';

/**
 * The topics each regex member may be given: those its pattern matches that its principal may DESCRIBE.
 * Kafka filters a regex refresh by the ACLs of the member whose heartbeat triggered it, so members of one
 * group with different permissions may be given each other's topics; here each member is filtered by its
 * own principal, so none is ever given (or shown in ConsumerGroupDescribe) a topic it may not describe.
 *
 * The callers live in memory only, refreshed by every heartbeat: after a restart or a failover a member
 * is unknown until it heartbeats again, and a target computed meanwhile gives it none of its pattern's
 * topics (never more than its principal may see). What each member was given at the last computation is
 * kept as a fingerprint, so an ACL change (`ConsumerGroupManager.onTopicAccessChanged`) or its next
 * heartbeat moves the group epoch when what it may be given changed (an ACL granted or revoked, its
 * caller now known) and the steady heartbeat costs a few cached look-ups.
 */
export class RegexAccess {
  private readonly callers = new Map<string, MemberCaller>();
  private readonly given = new Map<string, string>();
  private readonly answers = new Map<string, boolean>();
  private answersVersion = Number.NaN;

  constructor(private readonly port: TopicAccessPort) {}

  /** The member's heartbeat came from `caller` (the caller that receives its assignment); none: unknown. */
  remember(groupId: string, memberId: string, caller: MemberCaller | undefined): void {
    if (caller) this.callers.set(keyOf(groupId, memberId), caller);
    else this.callers.delete(keyOf(groupId, memberId));
  }

  /** The member left or was fenced. */
  forget(groupId: string, memberId: string): void {
    const key = keyOf(groupId, memberId);
    this.callers.delete(key);
    this.given.delete(key);
  }

  /**
   * The topics of `matched` the member may be given, recorded as what it was given; nothing while its
   * caller is unknown (after a restart, until its first heartbeat).
   */
  topicsFor(groupId: string, member: ConsumerGroupMember, matched: ReadonlySet<string>): ReadonlySet<string> {
    const key = keyOf(groupId, member.memberId);
    const caller = this.callers.get(key);
    if (!caller) {
      this.given.set(key, UNKNOWN);
      return EMPTY;
    }
    const allowed = this.allowed(caller, matched);
    this.given.set(key, fingerprint(allowed));
    return allowed;
  }

  /**
   * Whether what the member may be given now differs from what its target was computed with, so the
   * group epoch must move. A member this node has not computed a target for since it loaded the group is
   * checked against its target instead: a topic it may no longer describe moves the epoch.
   */
  changed(
    groupId: string,
    member: ConsumerGroupMember,
    matched: ReadonlySet<string>,
    target: Iterable<string>,
  ): boolean {
    const key = keyOf(groupId, member.memberId);
    const caller = this.callers.get(key);
    const given = this.given.get(key);
    if (!caller) return false;
    const allowed = this.allowed(caller, matched);
    if (given !== undefined) return given !== fingerprint(allowed);
    this.given.set(key, fingerprint(allowed));
    for (const topic of target) if (!member.subscribedTopicNames.has(topic) && !allowed.has(topic)) return true;
    return false;
  }

  /**
   * Whether the member may be given `topic`, one of its pattern's matches (OffsetDelete's question). A
   * member whose caller is unknown may be: it is given nothing only until its next heartbeat.
   */
  mayBeGiven(groupId: string, member: ConsumerGroupMember, topic: string): boolean {
    const caller = this.callers.get(keyOf(groupId, member.memberId));
    if (!caller) return true;
    this.refreshAnswers();
    return this.mayDescribe(caller, topic);
  }

  private allowed(caller: MemberCaller, matched: ReadonlySet<string>): Set<string> {
    this.refreshAnswers();
    const allowed = new Set<string>();
    for (const topic of matched) if (this.mayDescribe(caller, topic)) allowed.add(topic);
    return allowed;
  }

  /** The cached answers hold for one version of the ACLs, and only so many of them. */
  private refreshAnswers(): void {
    const version = this.port.version();
    if (version !== this.answersVersion || this.answers.size >= MAX_ANSWERS) {
      this.answers.clear();
      this.answersVersion = version;
    }
  }

  private mayDescribe(caller: MemberCaller, topic: string): boolean {
    const key = `${caller.principal}\u0000${caller.host}\u0000${topic}`;
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = this.port.canDescribeTopic(caller.principal, caller.host, topic);
      this.answers.set(key, answer);
    }
    return answer;
  }
}

/**
 * A group's resolved patterns whose topics are looked up per member (`regexTopicsOf`): the map itself
 * holds every match, for the group's subscription metadata; a member gets only what `access` allows it.
 */
export class MemberFilteredRegexes extends Map<string, Set<string>> {
  constructor(
    entries: Iterable<[string, Set<string>]>,
    private readonly groupId: string,
    private readonly access: RegexAccess,
  ) {
    super(entries);
  }

  topicsFor(member: ConsumerGroupMember, matched: ReadonlySet<string>): ReadonlySet<string> {
    return this.access.topicsFor(this.groupId, member, matched);
  }
}

/** The topics the member's regex gives it: its matches, filtered by its principal's ACLs when they are on. */
export function regexTopicsOf(
  member: ConsumerGroupMember,
  resolved: ReadonlyMap<string, ReadonlySet<string>>,
): ReadonlySet<string> | undefined {
  const matched = resolved.get(member.subscribedTopicRegex);
  if (!matched || !(resolved instanceof MemberFilteredRegexes)) return matched;
  return resolved.topicsFor(member, matched);
}

const EMPTY: ReadonlySet<string> = new Set();

function keyOf(groupId: string, memberId: string): string {
  return `${groupId}\u0000${memberId}`;
}

function fingerprint(topics: ReadonlySet<string>): string {
  return [...topics].sort().join('\u0000');
}
