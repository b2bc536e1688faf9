#!/usr/bin/env node
// `npm run build`'s server half: TypeScript's own compiler over tsconfig.build.json into dist/ (emptied
// first), then each `@cohort/<lib>` import in the emitted CommonJS rewritten to the relative path of
// that library's emitted file, as tsconfig.json's `paths` map it, so that `node dist/src/main.js` runs
// with nothing but production dependencies. (Nest's CLI did this; its dependencies require Node 22.)
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');

/** tsconfig.json's `paths`, exact patterns before wildcard ones, longer prefixes first. */
function aliases() {
  const { paths } = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8')).compilerOptions;
  return Object.entries(paths)
    .map(([pattern, [target]]) => ({
      wildcard: pattern.endsWith('/*'),
      prefix: pattern.replace(/\*$/, ''),
      target: path.join(root, target.replace(/\*$/, '')),
    }))
    .sort((a, b) => Number(a.wildcard) - Number(b.wildcard) || b.prefix.length - a.prefix.length);
}

/** The emitted file a specifier names (`@cohort/protocol` → dist/libs/protocol/src/index.js), or null. */
function emittedFile(specifier, mappings) {
  const mapping = mappings.find((m) => (m.wildcard ? specifier.startsWith(m.prefix) : specifier === m.prefix));
  if (!mapping) return null;
  const source = mapping.wildcard ? path.join(mapping.target, specifier.slice(mapping.prefix.length)) : mapping.target;
  const emitted = path.join(dist, path.relative(root, source));
  for (const candidate of [`${emitted}.js`, path.join(emitted, 'index.js')])
    if (fs.existsSync(candidate)) return candidate;
  throw new Error(`${specifier}: no emitted file at ${emitted}(.js|/index.js)`);
}

function rewriteImports(file, mappings) {
  const text = fs.readFileSync(file, 'utf8');
  const rewritten = text.replace(/require\("(@cohort\/[^"]+)"\)/g, (call, specifier) => {
    const target = emittedFile(specifier, mappings);
    if (!target) return call;
    let relative = path.relative(path.dirname(file), target).split(path.sep).join('/');
    if (!relative.startsWith('.')) relative = `./${relative}`;
    return `require("${relative}")`;
  });
  if (rewritten !== text) fs.writeFileSync(file, rewritten);
}

function emittedScripts(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) emittedScripts(full, out);
    else if (entry.name.endsWith('.js')) out.push(full);
  }
  return out;
}

fs.rmSync(dist, { recursive: true, force: true });
try {
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
} catch {
  process.exit(1); // tsc has printed the errors
}
const mappings = aliases();
for (const file of emittedScripts(dist)) rewriteImports(file, mappings);
