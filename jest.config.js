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
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
