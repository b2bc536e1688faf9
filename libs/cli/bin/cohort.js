#!/usr/bin/env node
'use strict';
// The `cohort` command. Installed from its tarball (globally or in a project) and in the Docker image,
// it runs the built JavaScript, dist/cohort.cjs (`npm pack ./libs/cli` builds it first). In a checkout
// of the repository, where the TypeScript sources and the dev dependency tsx are present, it runs the
// sources instead, so that `npx cohort` after `npm ci` is always the current code with no build step.
const path = require('node:path');
const fs = require('node:fs');

const sources = path.join(__dirname, '..', 'src', 'main.ts');
let tsx = null;
if (fs.existsSync(sources)) {
  try {
    tsx = require.resolve('tsx/cjs/api', { paths: [__dirname] });
  } catch {
    tsx = null; // a checkout pruned to production dependencies (the image's build stage): the build runs
  }
}
if (tsx) {
  // The repository's tsconfig maps the @cohort/* libraries to their sources, from whichever folder it runs.
  process.env.TSX_TSCONFIG_PATH ??= path.join(__dirname, '..', '..', '..', 'tsconfig.json');
  require(tsx).require('../src/main.ts', __filename);
} else {
  require('../dist/cohort.cjs');
}
