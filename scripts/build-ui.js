#!/usr/bin/env node
// Builds the web dashboard (ui/) into dist/ui: one minified ES module bundle, its stylesheet and
// index.html. Run by `npm run build` after scripts/build-server.js (which empties dist/), and by the dashboard's
// browser tests. `--out DIR` writes elsewhere; `--if-stale` builds only when a file under ui/ (or this
// script) is newer than the last build, so tests running side by side do not replace each other's
// assets while a page loads them.
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const outIndex = process.argv.indexOf('--out');
const outDir = outIndex > 0 ? path.resolve(process.argv[outIndex + 1]) : path.join(root, 'dist', 'ui');

/** Newest modification time of the files a build reads. */
function newestSource(dir = path.join(root, 'ui'), newest = fs.statSync(__filename).mtimeMs) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = entry.isDirectory() ? newestSource(full, newest) : Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function upToDate() {
  const built = path.join(outDir, 'app.js');
  return (
    fs.existsSync(path.join(outDir, 'index.html')) &&
    fs.existsSync(built) &&
    fs.statSync(built).mtimeMs >= newestSource()
  );
}

async function build() {
  if (process.argv.includes('--if-stale') && upToDate()) return;
  const started = Date.now();
  // Build into a sibling folder and swap it in, so a node serving the old assets never sees half a build.
  const staging = `${outDir}.building-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: { app: path.join(root, 'ui', 'src', 'main.tsx') },
    outdir: staging,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: path.join(root, 'ui', 'tsconfig.json'),
    legalComments: 'none',
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(root, 'ui', 'index.html'), path.join(staging, 'index.html'));
  fs.copyFileSync(path.join(root, 'ui', 'styles.css'), path.join(staging, 'styles.css'));
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(outDir), { recursive: true });
  fs.renameSync(staging, outDir);
  const bytes = fs
    .readdirSync(outDir)
    .filter((f) => !f.endsWith('.map'))
    .reduce((sum, f) => sum + fs.statSync(path.join(outDir, f)).size, 0);
  console.log(
    `dashboard: ${path.relative(root, outDir) || outDir} (${(bytes / 1024).toFixed(1)} KiB) in ${Date.now() - started} ms`,
  );
}

build().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
