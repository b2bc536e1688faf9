import { canRebalanceFrom, isValidTransition, VALID_PREVIOUS_STATES } from './group-state';
import { ClassicGroup } from './classic-group';

describe('group states', () => {
  it("holds Kafka's legal previous states as data", () => {
    expect(VALID_PREVIOUS_STATES).toEqual({
      Empty: ['PreparingRebalance'],
      PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
      CompletingRebalance: ['PreparingRebalance'],
      Stable: ['CompletingRebalance'],
      Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
    });
  });

  it('can rebalance exactly from Stable, CompletingRebalance and Empty', () => {
    expect(
      ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead'].filter((s) =>
        canRebalanceFrom(s as never),
      ),
    ).toEqual(['Empty', 'CompletingRebalance', 'Stable']);
  });

  it('refuses an illegal transition and leaves the state unchanged', () => {
    const group = new ClassicGroup('g', 'Empty', 0, 10);
    expect(isValidTransition('Empty', 'Stable')).toBe(false);
    expect(() => group.transitionTo('Stable', 1)).toThrow(
      /should be in CompletingRebalance before moving to Stable; it is Empty/,
    );
    expect(group.state).toBe('Empty');
    group.transitionTo('PreparingRebalance', 5);
    expect(group.state).toBe('PreparingRebalance');
    expect(group.currentStateTimestamp).toBe(5);
  });
});
