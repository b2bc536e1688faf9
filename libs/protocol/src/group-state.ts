/** Kafka's classic group states, by their wire names (docs/rest.md). */
export type GroupStateName = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

export const GROUP_STATE_NAMES: readonly GroupStateName[] = [
  'Empty',
  'PreparingRebalance',
  'CompletingRebalance',
  'Stable',
  'Dead',
];

/** Kafka's consumer group (KIP-848) states (docs/rest.md). */
export type ConsumerGroupStateName = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

export const CONSUMER_GROUP_STATE_NAMES: readonly ConsumerGroupStateName[] = [
  'Empty',
  'Assigning',
  'Reconciling',
  'Stable',
  'Dead',
];

/** A state of any group type, as REST shows and filters them. */
export type AnyGroupStateName = GroupStateName | ConsumerGroupStateName;

export const ANY_GROUP_STATE_NAMES: readonly AnyGroupStateName[] = [...GROUP_STATE_NAMES, 'Assigning', 'Reconciling'];
