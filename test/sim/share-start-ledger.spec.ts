import { sharePartitionStateRecord, sharePartitionStateTombstone } from '@cohort/coordinator/share/share-state-records';
import { ShareStartLedger } from './coordinator/share-start-ledger';

/** The SPSO check of the simulator's share runs goes red when SPSO moves back outside a new state epoch. */
describe('the share start ledger of the simulator', () => {
  const key = { groupId: 'sg', topic: 'jobs', partition: 0 };
  const record = (stateEpoch: number, startOffset: number) =>
    sharePartitionStateRecord(key, { stateEpoch, startOffset, endOffset: startOffset, ranges: [], deadLetters: [] }, 0);
  const commit = (l: ShareStartLedger, offset: number, r: { key: Buffer; value: Buffer | null }) =>
    l.committedRecord(0, offset, r.key, r.value);

  it('committed states: SPSO back in one state epoch, or the state epoch back, is a violation', () => {
    const l = new ShareStartLedger();
    commit(l, 10, record(0, 5));
    commit(l, 11, record(0, 4));
    commit(l, 12, record(1, 2));
    commit(l, 13, record(0, 9));
    expect(l.violations).toEqual([
      'sg/jobs-0: SPSO moved back from 5 (committed @0:10) to 4 (committed @0:11) in state epoch 0',
      'sg/jobs-0: state epoch went back from 1 (committed @0:12) to 0 (committed @0:13)',
    ]);
  });

  it('is quiet for a new state epoch, a tombstone, records of other kinds and older records filled in late', () => {
    const l = new ShareStartLedger();
    commit(l, 10, record(0, 5));
    commit(l, 11, record(1, 0));
    commit(l, 9, record(0, 0));
    l.committedRecord(0, 12, Buffer.from('[1,"group"]'), Buffer.from('{}'));
    commit(l, 13, sharePartitionStateTombstone(key, 0));
    commit(l, 14, record(0, 0));
    expect(l.violations).toEqual([]);
    expect(l.stats).toMatchObject({ committedStates: 3, epochRises: 1 });
  });

  it('the leading coordinator: behind what is committed, or moving back itself, is a violation', () => {
    const l = new ShareStartLedger();
    commit(l, 10, record(0, 5));
    l.servedState('node 1 in leader epoch 3', 'sg/jobs-0', 0, 4);
    l.servedState('node 2 in leader epoch 4', 'sg/jobs-0', 0, 7);
    l.servedState('node 2 in leader epoch 4', 'sg/jobs-0', 0, 6);
    // Ahead of the committed log (a redelivery not yet written) is allowed.
    l.servedState('node 2 in leader epoch 4', 'sg/jobs-0', 1, 0);
    expect(l.violations).toEqual([
      'sg/jobs-0: served by node 1 in leader epoch 3 at SPSO 4 (state epoch 0), behind 5 (state epoch 0) committed @0:10',
      'sg/jobs-0: SPSO moved back from 7 (served by node 2 in leader epoch 4) to 6 (served by node 2 in leader epoch 4) in state epoch 0',
    ]);
  });
});
