/**
 * `@cohort/assignors/testing`: fixtures and ported Kafka test cases of the assignors, for specs only. It
 * lives outside `src/` so neither production code nor the published package can reach it (`npm run lint`
 * fails if a production file imports it).
 */
export * from './kafka-fixtures';
export * from './sticky-harness';
export * from './group-arbitraries';
export * from './thrown';
export { defineAbstractStickyAssignorTests } from './abstract-sticky.cases';
export * from './server-assignor-cases';
