// Part of scripts/check-house-rules.js: every file in bench/ is run by `npm run bench`.
const fs = require('fs');
const path = require('path');

const RUNNER = path.join('bench', 'run.ts');

function benchFiles(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) benchFiles(full, out);
    // A spec of a bench helper is run by jest, not by the runner.
    else if (/\.(ts|js|cjs|mjs)$/.test(full) && !/\.spec\.ts$/.test(full)) out.push(full);
  }
  return out;
}

/** The bench file a string of `file` names, if any: an import specifier, or the file name of a child process it forks. */
function named(file, literal, files) {
  if (!literal.startsWith('.') && !/^[\w.-]+\.(ts|js|cjs|mjs)$/.test(literal)) return null;
  const base = path.normalize(path.join(path.dirname(file), literal));
  return [base, `${base}.ts`, path.join(base, 'index.ts')].find((candidate) => files.has(candidate)) ?? null;
}

/**
 * A benchmark that no section runs is not measured by anyone and drifts from the code it measures, so
 * every file in bench/ must be reachable from the runner (bench/run.ts): through imports, or named by a
 * reachable file as the program of a child process it starts (`fork(join(__dirname, 'x-worker.ts'))`).
 * Make a new benchmark a section of the runner (bench/harness/section.ts), or leave it out.
 */
function unreachableBenchFiles() {
  const files = new Set(benchFiles('bench'));
  if (!files.has(RUNNER)) return files.size > 0 ? [`${RUNNER}: the runner of bench/ is missing`] : [];
  const reached = new Set([RUNNER]);
  const queue = [RUNNER];
  while (queue.length > 0) {
    const file = queue.pop();
    const text = fs.readFileSync(file, 'utf8');
    for (const [, literal] of text.matchAll(/['"`]([^'"`\n$]+)['"`]/g)) {
      const target = named(file, literal, files);
      if (target && !reached.has(target)) {
        reached.add(target);
        queue.push(target);
      }
    }
  }
  return [...files]
    .filter((file) => !reached.has(file))
    .sort()
    .map((file) => `${file}: no section of npm run bench runs it (make it a section in ${RUNNER}, or remove it)`);
}

module.exports = { unreachableBenchFiles };
