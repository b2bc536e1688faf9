// Jest 30 + @swc/jest: NestJS 12 packages are ESM-only, so swc down-levels them to CJS
// (Jest cannot load ESM-only packages from node_modules otherwise). Type-checking is `npm run lint`.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const common = {
  transform: { '^.+\\.(t|j)s$': swc },
  // jose (JWT verification) is ESM-only too.
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/|jose/)'],
  // A library's test machinery is its `testing` entry point beside `src/`, not inside it.
  moduleNameMapper: {
    '^@cohort/([a-z-]+)/testing(/.*)?$': '<rootDir>/libs/$1/testing$2',
    '^@cohort/([a-z-]+)(/.*)?$': '<rootDir>/libs/$1/src$2',
  },
  testEnvironment: 'node',
  // fast-check's seed: fixed, or PROPERTY_SEED (see the file).
  setupFiles: ['<rootDir>/test/support/property-seed.setup.ts'],
};
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/test/sim/**/*.spec.ts',
        '<rootDir>/ui/**/*.spec.ts',
        // The bench's own helpers (its sections, which time things, never run here).
        '<rootDir>/bench/**/*.spec.ts',
      ],
    },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
  ],
  // Two cores: keep the worker count bounded so e2e servers and timers are not starved.
  maxWorkers: 2,
  // A worker's heap grows with every file it runs (what those files loaded stays until a full
  // collection), and a worker asked to exit frees its heap first: at the end of `npm test` the two held
  // 1.5 to 1.8 GB and took 0.5 to 1.2 s to exit, past the 500 ms Jest waits before it force-exits a worker
  // and reports that it "failed to exit gracefully", with nothing left open. A worker above this after a
  // file is replaced (killed at once), so the workers asked to exit at the end hold little and exit in time.
  workerIdleMemoryLimit: '300MB',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
