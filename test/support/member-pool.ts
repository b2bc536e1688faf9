import { GroupMember, type MemberOptions } from './group-member';

/** The members a test file opens, so that each test can close its own in afterEach. */
export class MemberPool {
  private readonly members: GroupMember[] = [];

  constructor(
    private readonly url: () => string,
    private readonly defaults: MemberOptions,
  ) {}

  async member(groupId: string, options: Partial<MemberOptions> = {}): Promise<GroupMember> {
    const member = await GroupMember.connect(this.url(), groupId, { ...this.defaults, ...options });
    this.members.push(member);
    return member;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.members.splice(0).map((member) => member.vanish()));
  }
}
