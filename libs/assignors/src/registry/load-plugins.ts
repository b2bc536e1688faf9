/**
 * ASSIGNOR_PLUGINS: modules (paths relative to the working directory, or package names) that export
 * one assignor or an array of them, as the default export or as `assignors`. Any problem — the module
 * cannot be found, throws while loading, exports no assignor, or an assignor's name clashes — throws
 * an Error naming the plugin, so the node refuses to start instead of running without it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { PartitionAssignor } from '../api/partition-assignor';
import type { AssignorRegistry } from './assignor-registry';
import { assignorShapeProblem } from './assignor-shape';

export interface LoadPluginsOptions {
  /** Directory that relative paths and package names resolve from; default process.cwd(). */
  cwd?: string;
}

/** "a, b" → ["a", "b"]; arrays are trimmed the same way. */
export function parsePluginList(specs: string | readonly string[] | undefined): string[] {
  const list = typeof specs === 'string' ? specs.split(',') : (specs ?? []);
  return list.map((spec) => spec.trim()).filter((spec) => spec.length > 0);
}

/**
 * A module path (relative to `cwd`) or a package name (resolved from `cwd`'s node_modules). A bare
 * "plugins/x.js" that exists on disk counts as a path, which is what someone typing it means.
 */
export function resolveModuleSpec(spec: string, cwd: string): string {
  const asPath = path.resolve(cwd, spec);
  if (spec.startsWith('.') || path.isAbsolute(spec) || existsSync(asPath)) return require.resolve(asPath);
  return createRequire(path.join(cwd, 'package.json')).resolve(spec);
}

/** The assignors a loaded module exports, unwrapping the CommonJS/ESM interop layers. */
export function exportedAssignors(moduleExports: unknown): unknown[] {
  let exported: unknown = moduleExports;
  for (let depth = 0; depth < 3; depth++) {
    if (
      typeof exported !== 'object' ||
      exported === null ||
      Array.isArray(exported) ||
      assignorShapeProblem(exported) === null
    )
      break;
    const record = exported as Record<string, unknown>;
    if (record.assignors !== undefined) exported = record.assignors;
    else if (record.default !== undefined) exported = record.default;
    else break;
  }
  return Array.isArray(exported) ? exported : [exported];
}

/** The registry is taken structurally: `@cohort/assignors/plugins` ships its own copy of the type. */
export async function loadAssignorPlugins(
  registry: Pick<AssignorRegistry, 'register'>,
  specs: string | readonly string[] | undefined,
  options: LoadPluginsOptions = {},
): Promise<string[]> {
  const cwd = options.cwd ?? process.cwd();
  const loaded: string[] = [];
  for (const spec of parsePluginList(specs)) {
    const fail = (reason: string): never => {
      throw new Error(`ASSIGNOR_PLUGINS: plugin '${spec}' ${reason}`);
    };
    let resolved = '';
    try {
      resolved = resolveModuleSpec(spec, cwd);
    } catch (error) {
      fail(`cannot be found from ${cwd}: ${(error as Error).message.split('\n')[0]}`);
    }
    let moduleExports: unknown;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a plugin is a module named at run time
      moduleExports = require(resolved) as unknown;
    } catch (error) {
      fail(`threw while loading: ${error instanceof Error ? error.message : String(error)}`);
    }
    const candidates = exportedAssignors(moduleExports);
    if (candidates.length === 0) fail('exports an empty list of assignors');
    for (const candidate of candidates) {
      const problem = assignorShapeProblem(candidate);
      if (problem) fail(`does not export an assignor as default export or 'assignors': ${problem}`);
      try {
        registry.register(candidate as PartitionAssignor, { source: `plugin '${spec}'` });
      } catch (error) {
        fail(`cannot be registered: ${(error as Error).message}`);
      }
      loaded.push((candidate as PartitionAssignor).name);
    }
  }
  return loaded;
}
