/**
 * `@cohort/coordinator/testing`: the coordinator's test doubles, for specs and benchmarks only. It lives
 * outside `src/` so no production file can import it (`npm run lint` fails if one does).
 */
export * from './coordinator-harness';
export * from './fake-partition-store';
export * from './recording-push-sink';
export * from './consumer-group-harness';
export * from './share-group-harness';
export * from './consumer-spec-helpers';
