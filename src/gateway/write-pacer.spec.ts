import { WritePacer } from './write-pacer';

/** A pacer whose turns run only when the test says, so each turn's writes can be seen. */
function pacerWithTurns(perTurn: number): {
  pacer: WritePacer;
  written: string[];
  nextTurn: () => void;
  turnsPending: () => number;
} {
  const turns: (() => void)[] = [];
  const pacer = new WritePacer(perTurn, (fn) => turns.push(fn));
  const written: string[] = [];
  return {
    pacer,
    written,
    nextTurn: () => turns.shift()?.(),
    turnsPending: () => turns.length,
  };
}

describe('WritePacer', () => {
  it('writes at once, in order, while the turn has room', () => {
    const { pacer, written } = pacerWithTurns(3);
    for (const name of ['a', 'b', 'c']) pacer.write(1, () => written.push(name));
    expect(written).toEqual(['a', 'b', 'c']);
    expect(pacer.backlog).toBe(0);
  });

  it("spreads a burst over turns, a turn's worth at a time, in order", () => {
    const { pacer, written, nextTurn } = pacerWithTurns(2);
    for (const name of ['a', 'b', 'c', 'd', 'e']) pacer.write(1, () => written.push(name));
    expect(written).toEqual(['a', 'b']);
    expect(pacer.backlog).toBe(3);
    nextTurn();
    expect(written).toEqual(['a', 'b', 'c', 'd']);
    nextTurn();
    expect(written).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pacer.backlog).toBe(0);
  });

  it('puts a write behind those already waiting, even when its turn still has room', () => {
    const { pacer, written, nextTurn } = pacerWithTurns(2);
    for (const name of ['a', 'b', 'c', 'd', 'e']) pacer.write(1, () => written.push(name));
    nextTurn(); // c, d: the turn is full, e waits
    pacer.write(1, () => written.push('f'));
    expect(written).toEqual(['a', 'b', 'c', 'd']);
    nextTurn();
    expect(written).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('gives a new turn a fresh budget once the backlog is gone', () => {
    const { pacer, written, nextTurn } = pacerWithTurns(2);
    for (const name of ['a', 'b', 'c']) pacer.write(1, () => written.push(name));
    nextTurn(); // c, with room left over
    pacer.write(1, () => written.push('d'));
    expect(written).toEqual(['a', 'b', 'c', 'd']);
    nextTurn(); // resets the budget
    pacer.write(1, () => written.push('e'));
    pacer.write(1, () => written.push('f'));
    expect(written).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('weighs a write by its cost: a push to many sockets fills a turn by itself', () => {
    const { pacer, written, nextTurn } = pacerWithTurns(10);
    pacer.write(10, () => written.push('push to 10'));
    pacer.write(1, () => written.push('answer'));
    expect(written).toEqual(['push to 10']);
    nextTurn();
    expect(written).toEqual(['push to 10', 'answer']);
  });

  it('schedules no turn for ordinary traffic until half the budget is spent', () => {
    const { pacer, written, nextTurn, turnsPending } = pacerWithTurns(10);
    for (let i = 0; i < 4; i++) pacer.write(1, () => written.push(`w${i}`));
    expect(turnsPending()).toBe(0); // a pending immediate would make every loop turn poll without waiting
    pacer.write(1, () => written.push('w4'));
    expect(turnsPending()).toBe(1);
    expect(written).toHaveLength(5);
    nextTurn(); // a fresh budget: ten more go out at once
    for (let i = 5; i < 15; i++) pacer.write(1, () => written.push(`w${i}`));
    expect(written).toHaveLength(15);
    expect(pacer.backlog).toBe(0);
  });

  it('schedules one turn at a time, and none once idle', () => {
    const { pacer, nextTurn, turnsPending } = pacerWithTurns(2);
    for (let i = 0; i < 5; i++) pacer.write(1, () => undefined);
    expect(turnsPending()).toBe(1);
    nextTurn();
    nextTurn();
    nextTurn(); // the last turn spent nothing
    expect(pacer.backlog).toBe(0);
    expect(turnsPending()).toBe(0);
  });

  it('keeps writing what waits when one write throws', () => {
    const { pacer, written, nextTurn } = pacerWithTurns(1);
    pacer.write(1, () => written.push('a'));
    pacer.write(1, () => {
      throw new Error('a broken write');
    });
    pacer.write(1, () => written.push('c'));
    expect(() => nextTurn()).toThrow('a broken write');
    nextTurn();
    expect(written).toEqual(['a', 'c']);
  });
});
