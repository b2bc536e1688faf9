/**
 * `@cohort/client/testing`: a fake coordinator socket and fake timers for the SDK's specs. It lives outside
 * `src/` so neither production code nor the published package can reach it (`npm run lint` fails if a
 * production file imports it).
 */
export * from './fake-coordinator';
export * from './fake-timers';
export * from './member-fixture';
export * from './fake-share-group';
export * from './share-fixture';
