import type { GroupDescription } from '@cohort/protocol';
import { hasMemberEpochs, memberEpochCells, stateEpochCells } from './consumer-group-columns';

// `cohort groups describe --state / --members` of a share group (KIP-932): its epochs and each
// member's epoch and assignment (shared partitions listed for every member working them).
const shareGroup: GroupDescription = {
  groupId: 'sg',
  type: 'share',
  state: 'Stable',
  protocolType: 'share',
  protocol: 'simple',
  generationId: 3,
  leader: null,
  coordinator: 0,
  groupEpoch: 3,
  assignmentEpoch: 3,
  assignor: 'simple',
  members: [
    {
      memberId: 'a',
      groupInstanceId: null,
      clientId: 'worker',
      clientHost: '/127.0.0.1',
      subscription: { topics: ['jobs'] },
      assignment: { partitions: [{ topic: 'jobs', partitions: [1, 0] }] },
      memberEpoch: 3,
      memberState: 'STABLE',
      targetAssignment: { partitions: [{ topic: 'jobs', partitions: [0, 1] }] },
    },
  ],
} as GroupDescription;

describe('cohort groups describe of a share group', () => {
  it('shows the group and assignment epochs with --state', () => {
    expect(hasMemberEpochs(shareGroup)).toBe(true);
    expect(stateEpochCells(shareGroup)).toEqual([3, 3]);
  });

  it('shows each member epoch, state, assignment and target with --members, nothing pending revocation', () => {
    expect(memberEpochCells(shareGroup, shareGroup.members[0])).toEqual([3, 'STABLE', 'jobs:0,1', 3, 'jobs:0,1', null]);
  });

  it('shows no epochs for a classic group', () => {
    expect(stateEpochCells({ ...shareGroup, type: 'classic' })).toEqual([null, null]);
  });
});
