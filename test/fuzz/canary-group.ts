import { eventually, GroupMember, settledTogether } from '../support/group-member';
import { request } from '../support/socket-client';

/**
 * A real group formed before the fuzzer starts: two members of `canary` on `canary-t`, stable, with
 * committed offsets. Its description and offsets are compared after the run: nothing the fuzzer sends
 * (it knows none of the members' ids) may change them.
 */
export class CanaryGroup {
  static readonly groupId = 'canary';
  static readonly topic = 'canary-t';

  private constructor(
    private readonly url: string,
    readonly members: GroupMember[],
  ) {}

  static async form(url: string): Promise<CanaryGroup> {
    const created = await fetch(`${url}/v1/topics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: CanaryGroup.topic, partitions: 4 }),
    });
    if (created.status !== 201) throw new Error(`canary topic: ${created.status}`);
    // Long sessions: a node busy with the fuzzer must not expire the canary's members for being slow.
    const options = {
      topics: [CanaryGroup.topic],
      sessionTimeoutMs: 60_000,
      rebalanceTimeoutMs: 60_000,
      heartbeatIntervalMs: 500,
    };
    const members = [
      await GroupMember.connect(url, CanaryGroup.groupId, options),
      await GroupMember.connect(url, CanaryGroup.groupId, options),
    ];
    for (const member of members) member.start();
    await eventually(
      () => settledTogether(members) && members.every((m) => m.held().length === 2),
      'the canary group settled',
      30_000,
    );
    for (const [i, member] of members.entries()) {
      const offsets = member.assignment!.partitions.flatMap((tp) =>
        tp.partitions.map((partition) => ({
          topic: tp.topic,
          partition,
          offset: 100 + partition + i,
          metadata: `canary-${partition}`,
        })),
      );
      const committed = await member.commit(offsets);
      if (committed.errorCode !== 0 || committed.topics.some((t) => t.partitions.some((p) => p.errorCode !== 0)))
        throw new Error(`canary commit failed: ${JSON.stringify(committed)}`);
    }
    return new CanaryGroup(url, members);
  }

  get generationId(): number {
    return this.members[0].generationId;
  }

  /** What an operator and a member see of the group: REST description and offsets, OffsetFetch. */
  async snapshot(): Promise<unknown> {
    const get = async (path: string): Promise<unknown> => {
      const response = await fetch(`${this.url}${path}`);
      return { status: response.status, body: (await response.json()) as unknown };
    };
    return {
      group: await get(`/v1/groups/${CanaryGroup.groupId}`),
      offsets: await get(`/v1/groups/${CanaryGroup.groupId}/offsets`),
      fetched: await request(this.members[0].socket, 'OffsetFetch', { groupId: CanaryGroup.groupId, topics: null }),
      generations: this.members.map((m) => m.generationId),
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.vanish()));
  }
}
