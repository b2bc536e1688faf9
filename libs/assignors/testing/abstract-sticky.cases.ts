/**
 * Port of Kafka's AbstractStickyAssignorTest (clients/.../consumer/internals), run for both sticky
 * assignors exactly as Kafka runs it through StickyAssignorTest and CooperativeStickyAssignorTest.
 * Expected assignments are Kafka's. Kafka's scale tests (a million partitions) live in the benchmark;
 * here they run at a size that keeps the suite fast. Randomized tests use a seeded generator.
 */
import type { StickyKind } from './sticky-harness';
import { defineBasicStickyTests } from './abstract-sticky-basic.cases';
import { defineReassignmentStickyTests } from './abstract-sticky-reassignment.cases';
import { defineScaleAndRackStickyTests } from './abstract-sticky-scale-racks.cases';

export function defineAbstractStickyAssignorTests(kind: StickyKind): void {
  defineBasicStickyTests(kind);
  defineReassignmentStickyTests(kind);
  defineScaleAndRackStickyTests(kind);
}
