#!/usr/bin/env node
// Builds the publishable packages into libs/<name>/dist with tsup (tsup.config.ts), each only when its
// sources changed since its last build. Usage: node scripts/build-packages.js [protocol|assignors|client|cli ...]
// (all of them by default). `npm run build:packages` runs it for all, and each package's `prepack`
// for itself, so that `npm pack ./libs/<name>` on a fresh checkout packs code, not an empty package.
// The stamp (libs/<name>/.build-stamp, outside what the package ships) is a hash of what the build reads.
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
// In dependency order: a package's build reads the sources of those before it.
const PACKAGES = ['protocol', 'assignors', 'client', 'cli'];
/** The files a finished build of each package has written (checked with the stamp). */
const OUTPUTS = {
  protocol: ['index.cjs', 'index.mjs'],
  assignors: ['index.cjs', 'index.mjs'],
  client: ['index.cjs', 'index.mjs', 'browser/cohort-client.global.js'],
  cli: ['cohort.cjs'],
};

function sourceFiles(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (!entry.name.endsWith('.spec.ts')) out.push(full);
  }
  return out;
}

/** A package's build reads its own sources, those of the @cohort packages it imports, and the build config. */
function stampOf(name) {
  const inputs = [path.join(root, 'tsup.config.ts'), path.join(root, 'tsconfig.json')];
  for (const lib of PACKAGES.slice(0, PACKAGES.indexOf(name) + 1))
    inputs.push(path.join(root, 'libs', lib, 'package.json'), ...sourceFiles(path.join(root, 'libs', lib, 'src')));
  const hash = createHash('sha1');
  for (const file of inputs.sort()) hash.update(`${path.relative(root, file)}\0`).update(fs.readFileSync(file));
  return hash.digest('hex');
}

function build(name) {
  const dir = path.join(root, 'libs', name);
  const stampFile = path.join(dir, '.build-stamp');
  const stamp = stampOf(name);
  const built = OUTPUTS[name].every((file) => fs.existsSync(path.join(dir, 'dist', file)));
  if (built && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) return;
  fs.rmSync(stampFile, { force: true });
  fs.rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('tsup/dist/cli-default.js')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, COHORT_PACKAGE: name },
  });
  fs.writeFileSync(stampFile, stamp);
}

const names = process.argv.length > 2 ? process.argv.slice(2) : PACKAGES;
for (const name of names) {
  if (!PACKAGES.includes(name)) {
    process.stderr.write(`build-packages: unknown package "${name}" (one of ${PACKAGES.join(', ')})\n`);
    process.exit(2);
  }
  build(name);
}
