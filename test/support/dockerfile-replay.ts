import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';

/** One instruction of a Dockerfile: its keyword and its text (continuations joined). */
export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  name: string;
  /** The image or earlier stage it starts from. */
  from: string;
  instructions: Instruction[];
}

/** The stages of a Dockerfile, in order (comments and the parser directive dropped, `\` continuations joined). */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of logical) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    if (keyword.toUpperCase() === 'FROM') {
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ name: name ?? String(stages.length), from, instructions: [] });
    } else {
      if (stages.length === 0) throw new Error(`${keyword} before the first FROM`);
      stages[stages.length - 1].instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

/** `ENV A=1 B="two"` as pairs, values expanded with `$VAR` / `${VAR}` from `env`, as Docker does. */
export function parseEnv(args: string, env: Record<string, string>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [, name, quoted, bare] of args.matchAll(/(\w+)=(?:"([^"]*)"|(\S*))/g)) {
    const value = (quoted ?? bare).replace(/\$\{?(\w+)\}?/g, (_, variable: string) => env[variable] ?? '');
    pairs.push([name, value]);
  }
  return pairs;
}

/** The exec form `["a", "b"]` of CMD, HEALTHCHECK CMD and VOLUME. */
export function execForm(args: string): string[] {
  return JSON.parse(args.slice(args.indexOf('['))) as string[];
}

/** `COPY [--from=stage] [--chown=u:g] src... dest` */
export function parseCopy(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
  const paths = words.filter((w) => !w.startsWith('--'));
  return { from, sources: paths.slice(0, -1), dest: paths[paths.length - 1] };
}

/**
 * A .dockerignore as a predicate over context-relative paths: Docker matches each pattern against the
 * path from the context root (`dist` is ./dist only, `libs/*\/dist` one level down), and a matched
 * folder takes its contents with it.
 */
export function dockerignore(text: string): (path: string) => boolean {
  const patterns = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => {
      const source = pattern
        .replace(/^\/+|\/+$/g, '')
        .split('**')
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
        )
        .join('.*');
      return new RegExp(`^${source}$`);
    });
  return (path) => {
    const segments = path.split('/');
    return segments.some((_, i) => patterns.some((p) => p.test(segments.slice(0, i + 1).join('/'))));
  };
}

/**
 * Copies like COPY: a folder's contents into dest, a file onto dest (or into it when dest ends with `/`).
 * `link`: hard links instead of copies (GNU `cp -al`), for a stage's files that nothing changes later:
 * the image's node_modules is thousands of files.
 */
export function copyInto(
  source: string,
  dest: string,
  keep: (path: string) => boolean = () => true,
  options: { link?: boolean } = {},
): void {
  const target = dest.endsWith('/') ? join(dest, source.split('/').pop()!) : dest;
  mkdirSync(dirname(target), { recursive: true });
  if (options.link) execFileSync('cp', ['-al', source, target]);
  else cpSync(source, target, { recursive: true, verbatimSymlinks: true, filter: (path) => keep(path) });
}

/** Every file under a folder, relative to it (symbolic links listed, not followed). */
export function filesUnder(root: string, dir = root, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(root, full, out);
    else out.push(relative(root, full));
  }
  return out;
}

/** Runs a shell step like RUN, in `cwd`, failing with its output. */
export async function runStep(command: string, cwd: string, env: Record<string, string | undefined>): Promise<void> {
  try {
    await promisify(execFile)('sh', ['-c', command], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`RUN ${command} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

/** Moves a stage's folder to become the next stage's (`FROM earlier AS next`), the earlier one no longer needed. */
export function continueStage(from: string, to: string): void {
  if (!existsSync(from) || !statSync(from).isDirectory()) throw new Error(`no stage folder at ${from}`);
  rmSync(to, { recursive: true, force: true });
  renameSync(from, to);
}

export function readDockerfile(path: string): { stages: Stage[]; ignored: (path: string) => boolean } {
  const ignoreFile = `${path}.dockerignore`;
  return {
    stages: parseDockerfile(readFileSync(path, 'utf8')),
    ignored: existsSync(ignoreFile) ? dockerignore(readFileSync(ignoreFile, 'utf8')) : () => false,
  };
}
