/**
 * `npm run build:packages` (scripts/build-packages.js): the publishable packages @cohort/protocol, @cohort/assignors and
 * @cohort/client, and the `cohort` command (@cohort/cli), each into its own `libs/<name>/dist` (gitignored), ready for `npm pack`.
 *
 * Node builds are ESM (.mjs) and CommonJS (.cjs) with their types (.d.mts / .d.cts); the @cohort
 * packages and socket.io-client stay external there, as package dependencies. The client's browser
 * bundle has everything inside (socket.io-client and both @cohort packages), as an ES module and as an
 * IIFE that defines the global `Cohort`.
 */
import { defineConfig, type Options } from 'tsup';

const COHORT_DEPENDENCIES = ['@cohort/protocol', '@cohort/assignors', 'socket.io-client'];

function nodeBuild(name: string, entry: Record<string, string>, overrides: Options = {}): Options {
  return {
    name,
    entry,
    outDir: `libs/${name}/dist`,
    format: ['esm', 'cjs'],
    platform: 'node',
    target: 'node20',
    // tsup 8 (the line that runs on Node 20) sets `baseUrl` for the declarations, which TypeScript 6 deprecates.
    dts: { compilerOptions: { incremental: false, types: ['node'], ignoreDeprecations: '6.0' } },
    sourcemap: true,
    splitting: false,
    clean: false,
    external: COHORT_DEPENDENCIES,
    removeNodeProtocol: false,
    outExtension: ({ format }) => ({
      js: format === 'cjs' ? '.cjs' : '.mjs',
      dts: format === 'cjs' ? '.d.cts' : '.d.mts',
    }),
    ...overrides,
  };
}

/** Every build, each named after its package (the browser bundle `client-browser`). */
const BUILDS: Options[] = [
  nodeBuild('protocol', { index: 'libs/protocol/src/index.ts', asyncapi: 'libs/protocol/src/asyncapi.ts' }),
  nodeBuild('assignors', { index: 'libs/assignors/src/index.ts', conformance: 'libs/assignors/src/conformance.ts' }),
  // The plugin loader require()s plugin modules, so it ships as CommonJS only (ESM imports it as such).
  nodeBuild('assignors', { plugins: 'libs/assignors/src/plugins.ts' }, { format: ['cjs'] }),
  nodeBuild('client', { index: 'libs/client/src/index.ts' }),
  {
    name: 'client-browser',
    entry: { 'cohort-client': 'libs/client/src/index.ts' },
    outDir: 'libs/client/dist/browser',
    format: ['esm', 'iife'],
    globalName: 'Cohort',
    platform: 'browser',
    target: 'es2022',
    noExternal: [/.*/],
    minify: true,
    sourcemap: true,
    splitting: false,
    clean: false,
    outExtension: ({ format }) => ({ js: format === 'iife' ? '.global.js' : '.mjs' }),
  },
  {
    // The `cohort` command as one CommonJS file with everything inside (commander and the @cohort
    // libraries), so that its tarball installs anywhere, globally too, with no dependency to fetch.
    name: 'cli',
    entry: { cohort: 'libs/cli/src/main.ts' },
    outDir: 'libs/cli/dist',
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    noExternal: [/.*/],
    sourcemap: true,
    splitting: false,
    clean: false,
    removeNodeProtocol: false,
    outExtension: () => ({ js: '.cjs' }),
  },
];

// scripts/build-packages.js builds one package at a time (COHORT_PACKAGE=client: its Node and browser builds).
const only = process.env.COHORT_PACKAGE;
export default defineConfig(only ? BUILDS.filter((build) => build.name?.replace(/-browser$/, '') === only) : BUILDS);
