/** Kafka's classic group states, by their wire names (SPEC §4). */
export type GroupStateName = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

export const GROUP_STATE_NAMES: readonly GroupStateName[] = [
  'Empty',
  'PreparingRebalance',
  'CompletingRebalance',
  'Stable',
  'Dead',
];
