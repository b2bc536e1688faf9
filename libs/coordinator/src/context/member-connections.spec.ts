import { MemberConnections } from './member-connections';

// Pushes go to the connection a member last heartbeated on; a closing connection finds its members; a
// member gets one push until it heartbeats again.

describe('the connections of heartbeat-driven members', () => {
  it('sends a member pushes to the connection it heartbeated on last, and says when it moved', () => {
    const connections = new MemberConnections();
    expect(connections.bind('g', 'm', 'c1')).toBe(false);
    expect(connections.bind('g', 'm', 'c1')).toBe(false);
    expect(connections.connectionOf('g', 'm')).toBe('c1');
    expect(connections.bind('g', 'm', 'c2')).toBe(true);
    expect(connections.connectionOf('g', 'm')).toBe('c2');
    expect(connections.membersOf('c1')).toEqual([]);
    expect(connections.membersOf('c2')).toEqual([{ groupId: 'g', memberId: 'm' }]);
    expect(connections.size).toBe(1);
  });

  it('finds every member of a closing connection, across groups, and keeps members of one id in other groups apart', () => {
    const connections = new MemberConnections();
    connections.bind('g1', 'm', 'c');
    connections.bind('g2', 'm', 'c');
    connections.bind('g1', 'n', 'c');
    connections.bind('g1', 'o', 'other');
    expect(connections.membersOf('c')).toEqual([
      { groupId: 'g1', memberId: 'm' },
      { groupId: 'g2', memberId: 'm' },
      { groupId: 'g1', memberId: 'n' },
    ]);
    connections.bind('g2', 'm', 'other');
    connections.forget('g1', 'n');
    expect(connections.membersOf('c')).toEqual([{ groupId: 'g1', memberId: 'm' }]);
    expect(connections.connectionOf('g2', 'm')).toBe('other');
    expect(connections.connectionOf('g1', 'n')).toBeUndefined();
    expect(connections.size).toBe(3);
    connections.forget('g1', 'm');
    expect(connections.membersOf('c')).toEqual([]);
    expect(connections.size).toBe(2);
  });

  it('pushes a member once until it heartbeats, and again after it left and came back', () => {
    const connections = new MemberConnections();
    connections.bind('g', 'm', 'c');
    expect(connections.tell('g', 'm')).toBe(true);
    expect(connections.tell('g', 'm')).toBe(false);
    expect(connections.tell('h', 'm')).toBe(true);
    connections.heard('g', 'm');
    expect(connections.tell('g', 'm')).toBe(true);
    connections.forget('g', 'm');
    expect(connections.tell('g', 'm')).toBe(true);
    expect(connections.tell('h', 'm')).toBe(false);
    connections.clear();
    expect(connections.size).toBe(0);
    expect(connections.tell('h', 'm')).toBe(true);
  });
});
