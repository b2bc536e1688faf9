import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

/**
 * Where `npm run build` puts the dashboard (scripts/build-ui.js): `dist/ui` of the checkout. This file
 * runs from `dist/src/ui` after a build and from `src/ui` under the tests, so the folder is found from
 * either place.
 */
export function dashboardAssetsDir(): string {
  const base = resolve(__dirname, '..', '..');
  const builtLayout = basename(base) === 'dist' && !existsSync(join(base, 'package.json'));
  return builtLayout ? join(base, 'ui') : join(base, 'dist', 'ui');
}
