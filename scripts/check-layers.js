// The floor plan of the house (docs/architecture.md, "Floors inside libs/coordinator"): the folders of a
// source root in a declared order, lowest first. A production file may import from its own folder and
// from folders below it, never from one above: every arrow runs down. Specs are not checked (a test may
// reach anywhere). Used by check-house-rules.js.
const fs = require('fs');
const path = require('path');

/**
 * `complete`: every folder of the root must be declared (a new folder has to take its place in the
 * order). Files directly in the root (the package's entry, its facade) sit on top.
 */
const LAYERS = {
  'libs/coordinator/src': {
    complete: true,
    order: [
      'ports', // what the app gives and gets: API types, config, metrics and logger, assignor and topic ports
      'validation', // protocol rules of a request
      'timers',
      'responses', // error bodies
      'topics',
      'group', // a group's state: members, offsets, lag windows, what each principal holds
      'lag',
      'records', // __consumer_offsets keys and values
      'context', // what every part of a shard shares: ShardEnv, connection index, store-error mapping
      'runtime', // CoordinatorResult and the partition's one writer
      'rebalance', // the classic protocol's parts and their manager
      'offsets', // offset writes and retention
      'consumer', // KIP-848 consumer groups
      'share', // KIP-932 share groups
      'migration', // online conversion between classic and consumer groups (GROUP_CONSUMER_MIGRATION_POLICY)
      'loader', // replay of a partition
      'shard', // CoordinatorShard, its loader and the registry of shards
      'handlers', // one file per request
      'dispatch', // the API table and the one dispatch
      'operations', // operator views and reset plans
      'specs', // state-machine tests only
    ],
  },
  // The NestJS app (docs/architecture.md, "Floors inside src"). Configuration knows nothing of the node it
  // configures (security checks its files at start through validateEnvironment's `more`); the node knows
  // nothing of security (the app hands it the cluster handshake); security guards the edges above it
  // and imports none of them.
  src: {
    complete: true,
    order: [
      'common', // the validation pipe, the REST error body, small shared helpers
      'config', // environment schema → typed config
      'node', // builds this node: the partition store of the mode, plus the coordinator
      'metrics',
      'logging',
      'security', // authentication, ACL authorization, limits, TLS, protected mode
      'gateway', // the socket edge
      'http', // the REST controllers
      'ui', // serves the dashboard
    ],
  },
};

function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (full.endsWith('.ts') && !/\.(e2e-)?spec\.ts$/.test(full)) out.push(full);
  }
  return out;
}

/** The top folder of `file` under `root`, or null for a file directly in the root. */
function folderOf(root, file) {
  const parts = path.relative(root, file).split(path.sep);
  return parts.length > 1 ? parts[0] : null;
}

function layerProblems() {
  const problems = [];
  for (const [root, { complete, order }] of Object.entries(LAYERS)) {
    const rank = new Map(order.map((folder, i) => [folder, i]));
    for (const file of walk(root)) {
      const folder = folderOf(root, file);
      if (folder === null) continue;
      if (!rank.has(folder)) {
        if (complete)
          problems.push(
            `${file}: folder ${root}/${folder} has no place in the declared layer order (scripts/check-layers.js)`,
          );
        continue;
      }
      const text = fs.readFileSync(file, 'utf8');
      for (const [, specifier] of text.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"](\.[^'"]*)['"]/g,
      )) {
        const target = path.normalize(path.join(path.dirname(file), specifier));
        if (path.relative(root, target).startsWith('..')) continue;
        const to = folderOf(root, target);
        if (to === folder) continue;
        if (to === null || !rank.has(to) || rank.get(to) > rank.get(folder))
          problems.push(
            `${file}: ${root}/${folder} imports ${specifier}, ${to === null ? 'the root' : `${root}/${to}`}, which sits above it (scripts/check-layers.js)`,
          );
      }
    }
  }
  return problems;
}

module.exports = { layerProblems, LAYERS };
