#!/usr/bin/env node
'use strict';
// The `cohort` command. The CLI is TypeScript; tsx (a dependency of the checkout) compiles it on the
// fly, so `npx cohort` works right after `npm ci`, offline, with no build step.
const { require: requireTs } = require('tsx/cjs/api');
requireTs('../src/main.ts', __filename);
