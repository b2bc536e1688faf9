// Part of scripts/check-house-rules.js: docs/architecture.md names only what exists.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const DOC = path.join('docs', 'architecture.md');

/** Tracked and new files of the repository (what a clone has), and every folder above them. */
function repositoryFiles() {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
    .split('\n')
    .filter((file) => file !== '' && fs.existsSync(file));
  const folders = new Set();
  for (const file of files) {
    for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) folders.add(dir);
  }
  return { files, folders };
}

/** The code spans of a Markdown text, outside fenced blocks. */
function codeSpans(text) {
  return [...text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((match) => match[1]);
}

/**
 * What the source declares: type, class, function and variable names (and where), members of classes
 * and interfaces (per file), enum members and string literals (states, event names), so a name in the
 * document can be looked up without running the compiler.
 */
function declarations(sources) {
  const declaredIn = new Map();
  const membersOf = new Map();
  const words = new Set();
  for (const file of sources) {
    const text = fs.readFileSync(file, 'utf8');
    for (const [, name] of text.matchAll(
      /\b(?:class|interface|type|function\*?|const|let|var|enum|namespace)\s+([A-Za-z_$][\w$]*)/g,
    )) {
      if (!declaredIn.has(name)) declaredIn.set(name, new Set());
      declaredIn.get(name).add(file);
    }
    const members = new Set();
    for (const [, name] of text.matchAll(
      /^\s*(?:(?:export|public|private|protected|readonly|static|async|get|set|override|abstract|declare)\s+)*\*?([A-Za-z_$][\w$]*)\s*(?:<[^>\n]*>)?\s*[?!]?\s*[(:=]/gm,
    ))
      members.add(name);
    membersOf.set(file, members);
    for (const name of members) words.add(name);
    for (const [, literal] of text.matchAll(/['"]([A-Za-z_$][\w$]*)['"]/g)) words.add(literal);
    for (const [, caps] of text.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{3,})\b/g)) words.add(caps);
  }
  return { declaredIn, membersOf, words };
}

/** Whether `span` names something that exists; null when the span is not a name the check can read. */
function exists(span, repo, code, scripts) {
  const npm = /^npm run ([\w:-]+)/.exec(span);
  if (npm) return npm[1] in scripts;
  if (/\s/.test(span) && !/^[\w$.]+\(.*\)$/.test(span)) return null; // prose, an expression, a command
  if (/[<>]/.test(span) || span.startsWith('/')) return null; // a pattern with placeholders, a URL path
  const isPath = span.includes('/') || /\.(ts|tsx|js|cjs|md|json|ya?ml)$/.test(span);
  if (isPath) {
    if (span.startsWith('@')) {
      const local = /^@cohort\/([\w-]+)(\/.*)?$/.exec(span);
      if (!local) return null; // another package
      return exists(`libs/${local[1]}${local[2] ?? ''}`, repo, code, scripts);
    }
    const wanted = span.replace(/\/$/, '');
    if (wanted.includes('*')) {
      const pattern = new RegExp(
        `(^|/)${wanted
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*\//g, '(.*/)?')
          .replace(/\*/g, '[^/]*')}$`,
      );
      return repo.files.some((file) => pattern.test(file)) || [...repo.folders].some((dir) => pattern.test(dir));
    }
    const suffix = `/${wanted}`;
    const matches = (candidate) => candidate === wanted || candidate.endsWith(suffix);
    return repo.files.some(matches) || [...repo.folders].some(matches);
  }
  const name = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)(?:\(.*\))?(?:=\S+)?$/.exec(span);
  if (!name) return null;
  const [owner, member] = name[1].split('.');
  if (member === undefined) return code.declaredIn.has(owner) || code.words.has(owner);
  const files = code.declaredIn.get(owner);
  return files !== undefined && [...files].some((file) => code.membersOf.get(file).has(member));
}

/**
 * docs/architecture.md is the newcomer's map, and a map that names a moved file or a renamed class
 * misleads: every file, folder and glob it names in backticks must exist (a path may be written from
 * any folder down, as the document writes `runtime/shard-runtime.ts` in the coordinator's section),
 * every identifier (`Name`, `Name.member`, `name()`) must be declared in the repository's code, every
 * UPPER_CASE name (a setting, an error code) must appear in it, and every `npm run <script>` must be a
 * script of package.json. Names of other code bases (Kafka's, Node's) are written in italics.
 */
function architectureDocProblems() {
  if (!fs.existsSync(DOC)) return [];
  const repo = repositoryFiles();
  // What specs declare is theirs: the document names the code they test.
  const sources = repo.files.filter(
    (file) => /\.(ts|tsx|js|cjs)$/.test(file) && !/\.(e2e-)?spec\.ts$/.test(file) && !file.startsWith('test/fixtures/'),
  );
  const code = declarations(sources);
  const scripts = JSON.parse(fs.readFileSync('package.json', 'utf8')).scripts ?? {};
  const problems = [];
  for (const span of new Set(codeSpans(fs.readFileSync(DOC, 'utf8')))) {
    if (exists(span, repo, code, scripts) === false)
      problems.push(
        `${DOC}: \`${span}\` names nothing in the repository (moved or renamed? Kafka's names go in italics)`,
      );
  }
  return problems;
}

module.exports = { architectureDocProblems };
