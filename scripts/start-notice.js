#!/usr/bin/env node
// `npm start` builds before it runs, silently for up to ~40 s on a fresh checkout: say so first.
console.log(
  'cohort: building the server and the dashboard first (scripts/build-server.js, then scripts/build-ui.js): about 40 s on a ' +
    'fresh checkout, less after. `npm run start:prod` starts what is already built.',
);
