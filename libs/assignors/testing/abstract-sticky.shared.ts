import { canonicalName } from './sticky-harness';

/**
 * Shared names and helpers of the AbstractStickyAssignorTest port (see abstract-sticky.cases.ts).
 */
export const consumerId = 'consumer';
export const consumer1 = 'consumer1';
export const consumer2 = 'consumer2';
export const consumer3 = 'consumer3';
export const consumer4 = 'consumer4';
export const topic = 'topic';
export const topic1 = 'topic1';
export const topic2 = 'topic2';
export const topic3 = 'topic3';
export const tp = (t: string, p: number): string => `${t}-${p}`;
export const topicName = (i: number, max: number): string => canonicalName('t', i, max);
export const consumerName = (i: number, max: number): string => canonicalName('c', i, max);
export const countOf = (list: string[], t: string): number =>
  list.filter((p) => p.slice(0, p.lastIndexOf('-')) === t).length;
