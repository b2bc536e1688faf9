import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

export const REPO_ROOT = resolve(__dirname, '../..');
export const PACKAGES = ['protocol', 'assignors', 'client'] as const;
export type PackageName = (typeof PACKAGES)[number];

/** The browser bundle inside @cohort/client (ES module and IIFE defining `Cohort`). */
export const BROWSER_BUNDLE = {
  esm: join(REPO_ROOT, 'libs/client/dist/browser/cohort-client.mjs'),
  global: join(REPO_ROOT, 'libs/client/dist/browser/cohort-client.global.js'),
};

const STAMP = join(REPO_ROOT, 'libs/client/dist/.source-stamp');
const LOCK = join(
  tmpdir(),
  `cohort-build-packages-${createHash('sha1').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`,
);
const STALE_LOCK_MS = 10 * 60_000;

function files(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files(full, out);
    else out.push(full);
  }
  return out;
}

/** What the build reads: every package's sources and manifest, and the build config. */
function sourceStamp(): string {
  const inputs = [join(REPO_ROOT, 'tsup.config.ts')];
  for (const name of PACKAGES) {
    inputs.push(
      join(REPO_ROOT, 'libs', name, 'package.json'),
      ...files(join(REPO_ROOT, 'libs', name, 'src')).filter((f) => !f.endsWith('.spec.ts')),
    );
  }
  const hash = createHash('sha1');
  for (const file of inputs.sort()) hash.update(`${relative(REPO_ROOT, file)}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

function fresh(stamp: string): boolean {
  return existsSync(STAMP) && readFileSync(STAMP, 'utf8') === stamp && existsSync(BROWSER_BUNDLE.global);
}

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
 * `npm run build:packages` unless libs/*\/dist already holds a build of the current sources. Test
 * files that need the packages call this in beforeAll; a lock makes parallel callers build once.
 */
export async function ensurePackagesBuilt(): Promise<void> {
  if (fresh(sourceStamp())) return;
  await withLock(async () => {
    const stamp = sourceStamp();
    if (fresh(stamp)) return;
    await promisify(execFile)('npm', ['run', 'build:packages'], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
    writeFileSync(STAMP, stamp);
  });
}
