import { cpSync, mkdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import {
  continueStage,
  copyInto,
  execForm,
  parseCopy,
  parseEnv,
  readDockerfile,
  runStep,
  type Stage,
} from './dockerfile-replay';

/** What a replayed image is: a folder standing for its filesystem and the settings of its last stage. */
export interface ReplayedImage {
  /** The folder standing for the image's `/`. */
  root: string;
  /** The final stage's WORKDIR inside `root`. */
  workdir: string;
  /** ENV of the final stage, as the image defines it (container paths). */
  env: Record<string, string>;
  cmd: string[];
  healthcheck: string[] | null;
  user: string | null;
  /** The base image of every stage that starts from one (`node:20-bookworm-slim`...). */
  baseImages: string[];
  /** How long each replayed instruction took (to see which step a slow replay spent its time in). */
  timings: { step: string; ms: number }[];
}

/** The PATH a base image starts with (Debian's, as the official node images set it). */
const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** A final-stage RUN the replay knows: it prepares a folder outside WORKDIR for the node user (the data volume). */
const DATA_FOLDER_STEP = /^mkdir -p (\/\S+) && chown node:node \1$/;

/**
 * Replays a Dockerfile without Docker, in `work`: each stage is a folder standing for its `/`; COPY from
 * the context (minus the .dockerignore) or from an earlier stage, RUN as a shell step in WORKDIR (npm
 * with `--prefer-offline`, so a warm cache is used), ENV, WORKDIR, USER, CMD and HEALTHCHECK recorded.
 * A RUN of the final stage must be the data-folder step; the replay makes that folder inside `root`.
 */
export async function replayImage(dockerfile: string, context: string, work: string): Promise<ReplayedImage> {
  const { stages, ignored } = readDockerfile(dockerfile);
  const roots = new Map<string, string>();
  const states = new Map<string, ReplayedImage>();
  const baseImages: string[] = [];
  const timings: ReplayedImage['timings'] = [];
  let image: ReplayedImage | null = null;
  for (const [index, stage] of stages.entries()) {
    const root = join(work, `stage-${stage.name}`);
    const last = index === stages.length - 1;
    const earlier = roots.get(stage.from);
    if (earlier) {
      // `FROM deps AS build`: later stages copy from `build`, never from `deps`, so its folder moves on.
      if (stages.slice(index).some((s) => copiesFrom(s, stage.from)))
        cpSync(earlier, root, { recursive: true, verbatimSymlinks: true });
      else continueStage(earlier, root);
    } else {
      baseImages.push(stage.from);
      mkdirSync(root, { recursive: true });
    }
    roots.set(stage.name, root);
    // A stage from an earlier one inherits its settings (WORKDIR, ENV, USER...), a base image's start afresh.
    const inherited = states.get(stage.from);
    const current: ReplayedImage = inherited
      ? { ...inherited, root, env: { ...inherited.env } }
      : { root, workdir: '/', env: { PATH: IMAGE_PATH }, cmd: [], healthcheck: null, user: null, baseImages, timings };
    const inside = (path: string) => join(root, isAbsolute(path) ? path : join(current.workdir, path));
    for (const { keyword, args } of stage.instructions) {
      const started = Date.now();
      if (keyword === 'WORKDIR') {
        current.workdir = args;
        mkdirSync(inside('.'), { recursive: true });
      } else if (keyword === 'ENV') {
        for (const [name, value] of parseEnv(args, current.env)) current.env[name] = value;
      } else if (keyword === 'COPY') {
        const { from, sources, dest } = parseCopy(args);
        const target = inside(dest) + (dest.endsWith('/') ? '/' : '');
        for (const source of sources) {
          if (from) copyInto(join(roots.get(from)!, source), target, () => true, { link: true });
          else copyInto(join(context, source), target, (path) => !ignored(relative(context, path)));
        }
      } else if (keyword === 'RUN') {
        const data = DATA_FOLDER_STEP.exec(args);
        if (data && last) mkdirSync(join(root, data[1]), { recursive: true });
        else if (last) throw new Error(`the replay does not know the final stage's step RUN ${args}`);
        else await runStep(args, inside('.'), buildEnv(current.env));
      } else if (keyword === 'CMD') current.cmd = execForm(args);
      else if (keyword === 'HEALTHCHECK') current.healthcheck = execForm(args.slice(args.indexOf('CMD')));
      else if (keyword === 'USER') current.user = args;
      else if (!['VOLUME', 'EXPOSE', 'STOPSIGNAL', 'ARG', 'LABEL'].includes(keyword))
        throw new Error(`the replay does not know ${keyword}`);
      timings.push({ step: `${stage.name}: ${keyword} ${args}`.slice(0, 100), ms: Date.now() - started });
    }
    states.set(stage.name, current);
    image = current;
  }
  if (!image) throw new Error(`${dockerfile} has no stage`);
  return image;
}

function copiesFrom(stage: Stage, name: string): boolean {
  return stage.instructions.some((i) => i.keyword === 'COPY' && parseCopy(i.args).from === name);
}

/**
 * The environment of a build step: the image's ENV over this machine's PATH and HOME (its node and npm,
 * its npm cache), npm told to prefer that cache.
 */
function buildEnv(env: Record<string, string>): Record<string, string | undefined> {
  return {
    ...env,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    npm_config_cache: process.env.npm_config_cache,
    npm_config_prefer_offline: 'true',
  };
}

/** A container path of the image (`/var/lib/cohort`, `/app/node_modules/.bin`) inside the replay's folder. */
export function hostPath(image: ReplayedImage, path: string): string {
  return join(image.root, isAbsolute(path) ? path : join(image.workdir, path));
}

/** The image's PATH with its own folders mapped into the replay, then this machine's (for `node`). */
export function hostPathVariable(image: ReplayedImage): string {
  const own = image.env.PATH.split(':').filter((dir) => !IMAGE_PATH.split(':').includes(dir));
  return [...own.map((dir) => hostPath(image, dir)), process.env.PATH].join(':');
}
