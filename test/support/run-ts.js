'use strict';
// Runs one of the app's TypeScript entry points in a child process, compiled as Jest compiles it (swc:
// decorators with metadata, CommonJS) and with the @cohort/* aliases, so an e2e test can watch a real
// `main.ts` process (its stdout, its exit) without a build first. Usage: node run-ts.js src/main.ts
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const swc = require('@swc/core');

const ROOT = join(__dirname, '..', '..');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@cohort\/([a-z-]+)(\/.*)?$/.exec(request);
  return resolveFilename.call(this, alias ? join(ROOT, 'libs', alias[1], 'src', alias[2] ?? '') : request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
require(join(ROOT, process.argv[2]));
