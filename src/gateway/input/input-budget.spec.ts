import { InputBudget } from './input-budget';

describe('InputBudget', () => {
  it('closes nothing while all connections together stay within the budget, and forgets whole messages', () => {
    const budget = new InputBudget<string>(1000);
    expect(budget.update('a', 400)).toEqual([]);
    expect(budget.update('b', 600)).toEqual([]);
    expect(budget.heldBytes).toBe(1000);
    expect(budget.update('a', 0)).toEqual([]);
    expect(budget.update('c', 400)).toEqual([]);
    expect(budget.heldBytes).toBe(1000);
  });

  it('past the budget, closes the connection that went over when it holds at least the average', () => {
    const budget = new InputBudget<string>(1000);
    budget.update('small', 100);
    budget.update('mid', 400);
    expect(budget.update('big', 700)).toEqual([{ key: 'big', held: 700 }]);
    expect(budget.heldBytes).toBe(500);
  });

  it('closes the larger holders instead when the one that went over holds little, until the total fits', () => {
    const budget = new InputBudget<string>(1000);
    budget.update('stalled-1', 450);
    budget.update('stalled-2', 450);
    // A client whose message is on its way tips the total over: the stalled ones hold more and go.
    expect(budget.update('arriving', 200)).toEqual([{ key: 'stalled-1', held: 450 }]);
    expect(budget.heldBytes).toBe(650);
    expect(budget.update('arriving', 600)).toEqual([{ key: 'arriving', held: 600 }]);
    expect(budget.heldBytes).toBe(450);
  });

  it('closes as many as it takes when one update passes the budget by much', () => {
    const budget = new InputBudget<number>(1000);
    for (let i = 0; i < 10; i++) budget.update(i, 100);
    const evicted = budget.update(10, 900);
    expect(evicted[0]).toEqual({ key: 10, held: 900 });
    expect(budget.heldBytes).toBeLessThanOrEqual(1000);
    expect(budget.update(10, 0)).toEqual([]);
  });
});
