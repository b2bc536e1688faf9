import { BatchTells } from './heartbeat-batch-tells';

// A batch pushes (HeartbeatNow) only members not waiting for one of its answers; those waiting are
// pushed once answered, if still due, and a member whose answer handed it its target is not pushed.

const taken = (tells: BatchTells, groupId = 'g') => [...(tells.take().get(groupId) ?? [])].sort();

describe('the pushes a heartbeat batch owes', () => {
  it('hands out a due member not waiting at once, and one waiting only once its heartbeat is answered', () => {
    const tells = new BatchTells();
    tells.park('g', ['waiting']);
    tells.add('g', 'waiting');
    tells.add('g', 'idle');
    expect(taken(tells)).toEqual(['idle']);
    expect(taken(tells)).toEqual([]);
    expect([...tells.due.get('g')!]).toEqual(['waiting']);
    tells.unpark('g', ['waiting']);
    expect(taken(tells)).toEqual(['waiting']);
    expect(tells.due.size).toBe(0);
  });

  it('holds back a due member that starts waiting before the push goes, and drops it once its answer hands it its target', () => {
    const tells = new BatchTells();
    tells.add('g', 'm');
    tells.park('g', ['m', '\u0000instance-1']);
    expect(tells.awaits('g', 'other', 'instance-1')).toBe(true);
    expect(taken(tells)).toEqual([]);
    tells.unpark('g', ['m', '\u0000instance-1']);
    tells.answered('g', 'm');
    expect(taken(tells)).toEqual([]);
    expect(tells.due.size).toBe(0);
    expect(tells.awaits('g', 'm')).toBe(false);
  });

  it('keeps groups apart', () => {
    const tells = new BatchTells();
    tells.park('g1', ['m']);
    tells.add('g1', 'm');
    tells.add('g2', 'm');
    const now = tells.take();
    expect([...now.keys()]).toEqual(['g2']);
    expect(tells.awaits('g2', 'm')).toBe(false);
  });
});
