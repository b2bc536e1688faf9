#!/usr/bin/env node
// Mechanical checks of the rules of the house (docs/architecture.md); exits non-zero on a breach.
// Three live in files of their own: check-bench-reachable.js, check-architecture-doc.js and check-layers.js.
const fs = require('fs');
const path = require('path');

function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (full.endsWith('.ts') && !full.endsWith('.spec.ts')) out.push(full);
  }
  return out;
}

const problems = [];
for (const file of walk('libs')) {
  const text = fs.readFileSync(file, 'utf8');
  if (/from ['"](@nestjs\/|(\.\.\/)+src\/)/.test(text))
    problems.push(`${file}: libs/ must not import @nestjs/* or src/`);
  if (file.startsWith(path.join('libs', 'assignors')) && /from ['"]@cohort\/(replication|coordinator)/.test(text)) {
    problems.push(`${file}: libs/assignors may depend on @cohort/protocol only`);
  }
  if (file.startsWith(path.join('libs', 'replication')) && /from ['"]@cohort\/coordinator/.test(text)) {
    problems.push(`${file}: libs/replication knows nothing of groups`);
  }
  const timed = /(libs\/(replication|coordinator))/.test(file) && !/clock|random|timer/i.test(path.basename(file));
  if (timed && /Date\.now\(|new Date\(\)|setTimeout\(|setInterval\(|Math\.random\(/.test(text)) {
    problems.push(`${file}: time and randomness go through the injected Clock/Random ports`);
  }
}
problems.push(
  ...testMachineryInProduction(),
  ...brokenDocLinks(),
  ...pointersOutside(),
  ...require('./check-bench-reachable').unreachableBenchFiles(),
  ...require('./check-architecture-doc').architectureDocProblems(),
  ...require('./check-layers').layerProblems(),
);
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log('house rules: ok');

/**
 * Test machinery stays out of production code: no non-spec file under src/ or libs/<lib>/src imports a
 * library's `testing` entry point (`@cohort/<lib>/testing`), anything in a `testing/` folder, or test/.
 * Files that are themselves in a `testing/` folder are test machinery and may use each other.
 */
function testMachineryInProduction() {
  const libSources = fs.existsSync('libs') ? fs.readdirSync('libs').map((lib) => path.join('libs', lib, 'src')) : [];
  const production = [...walk('src'), ...libSources.flatMap((dir) => walk(dir))].filter(
    (file) => !/\.(e2e-)?spec\.ts$/.test(file) && !file.split(path.sep).includes('testing'),
  );
  const found = [];
  for (const file of production) {
    const text = fs.readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm,
    )) {
      if (isTestMachinery(file, specifier))
        found.push(`${file}: production code must not import test machinery (${specifier})`);
    }
  }
  return found;
}

function isTestMachinery(file, specifier) {
  if (specifier.startsWith('.')) {
    const target = path.normalize(path.join(path.dirname(file), specifier));
    return target.split(path.sep).includes('testing') || target === 'test' || target.startsWith(`test${path.sep}`);
  }
  return /^@cohort\/[a-z-]+\/(.+\/)?testing(\/|$)/.test(specifier);
}

/**
 * Every relative link in the documents a reader of a fresh clone has (README.md, docs/, each library's
 * README) must resolve to a file or folder of the repository.
 */
function brokenDocLinks() {
  const docs = [
    'README.md',
    ...walkDocs('docs'),
    ...fs.readdirSync('libs').map((lib) => path.join('libs', lib, 'README.md')),
  ].filter((file) => fs.existsSync(file));
  const broken = [];
  for (const file of docs) {
    const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^([a-z]+:|#|\/)/i.test(target)) continue; // absolute URLs, anchors and server paths are not files
      const resolved = path.join(path.dirname(file), decodeURIComponent(target.split('#')[0]));
      if (!fs.existsSync(resolved)) broken.push(`${file}: link to ${target} does not resolve`);
    }
  }
  return broken;
}

function walkDocs(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walkDocs(full, out);
    else if (full.endsWith('.md')) out.push(full);
  }
  return out;
}

/**
 * Nothing of the project points at documents a clone does not have (the design notes the team keeps
 * beside the repository): cite docs/, the READMEs, or Kafka's own classes and KIPs.
 */
function pointersOutside() {
  const { execFileSync } = require('child_process');
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
    .split('\n')
    .filter(
      (file) =>
        /\.(ts|tsx|js|mjs|cjs|md|json|ya?ml|sh)$/.test(file) &&
        !file.endsWith('package-lock.json') &&
        fs.existsSync(file),
    );
  // Spelled in pieces so this file does not match itself.
  const pattern = new RegExp(
    ['\\.\\./' + 'shared\\b', '\\bSPEC' + ' §', '\\breference' + ' §', 'reference' + '/kafka-[a-z-]+\\.md'].join('|'),
  );
  return files
    .flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => [file, i + 1, line]),
    )
    .filter(([, , line]) => pattern.test(line))
    .map(([file, n]) => `${file}:${n}: points outside the repository`);
}
