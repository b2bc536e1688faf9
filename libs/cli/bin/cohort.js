#!/usr/bin/env node
'use strict';
// The `cohort` command. The CLI is TypeScript; tsx (a dependency of the checkout) compiles it on the
// fly, so `npx cohort` works right after `npm ci`, offline, with no build step.
// The repository's tsconfig maps the @cohort/* libraries to their sources, from whichever folder it runs.
process.env.TSX_TSCONFIG_PATH ??= require('path').join(__dirname, '..', '..', '..', 'tsconfig.json');
const { require: requireTs } = require('tsx/cjs/api');
requireTs('../src/main.ts', __filename);
