/**
 * `@cohort/assignors/conformance`: the conformance check as a library, for plugin authors who want it
 * in their own test suite (`npm run assignor:check` is its command line in this repository).
 */
export { runConformance, type ConformanceReport, type ConformanceHooks } from './conformance/run-conformance';
export { formatReport } from './conformance/format-report';
