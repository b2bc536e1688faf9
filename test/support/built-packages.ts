import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const REPO_ROOT = resolve(__dirname, '../..');
export const PACKAGES = ['protocol', 'assignors', 'client'] as const;
export type PackageName = (typeof PACKAGES)[number];

/** The browser bundle inside @cohort/client (ES module and IIFE defining `Cohort`). */
export const BROWSER_BUNDLE = {
  esm: join(REPO_ROOT, 'libs/client/dist/browser/cohort-client.mjs'),
  global: join(REPO_ROOT, 'libs/client/dist/browser/cohort-client.global.js'),
};

const LOCK = join(
  tmpdir(),
  `cohort-build-packages-${createHash('sha1').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`,
);
const STALE_LOCK_MS = 10 * 60_000;

async function withLock<T>(run: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // Another test file is building; a lock left by a killed run is taken over after a while.
      const held = statSync(LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await run();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * `npm run build:packages`, which rebuilds only a package whose sources changed since its last build
 * (scripts/build-packages.js). Test files that need the packages call this in beforeAll; a lock makes
 * parallel callers build once.
 */
export async function ensurePackagesBuilt(): Promise<void> {
  await withLock(async () => {
    await promisify(execFile)('npm', ['run', 'build:packages'], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  });
}
