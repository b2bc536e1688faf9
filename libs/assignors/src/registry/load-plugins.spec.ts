import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AssignorRegistry } from './assignor-registry';
import { loadAssignorPlugins, parsePluginList } from './load-plugins';

const assignorSource = (name: string): string =>
  `{ name: '${name}', assign: (cluster, members) => Object.fromEntries(members.map((m) => [m.memberId, { partitions: [] }])) }`;

describe('loadAssignorPlugins (ASSIGNOR_PLUGINS)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cohort-plugins-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, source: string): void => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), source);
  };

  it('parses the comma-separated list', () => {
    expect(parsePluginList(' ./a.js, pkg ,,')).toEqual(['./a.js', 'pkg']);
    expect(parsePluginList(undefined)).toEqual([]);
  });

  it('loads a default export, an `assignors` array and an ES-module-style default, from paths and packages', async () => {
    write('single.js', `module.exports = ${assignorSource('one')};`);
    write('many.js', `exports.assignors = [${assignorSource('two')}, ${assignorSource('three')}];`);
    write(
      'esm-style.js',
      `Object.defineProperty(exports, '__esModule', { value: true }); exports.default = ${assignorSource('four')};`,
    );
    write(
      'node_modules/cohort-plugin-five/package.json',
      JSON.stringify({ name: 'cohort-plugin-five', main: 'index.js' }),
    );
    write('node_modules/cohort-plugin-five/index.js', `module.exports = { default: ${assignorSource('five')} };`);
    const registry = new AssignorRegistry();
    const loaded = await loadAssignorPlugins(registry, './single.js, ./many.js,./esm-style.js, cohort-plugin-five', {
      cwd: dir,
    });
    expect(loaded).toEqual(['one', 'two', 'three', 'four', 'five']);
    expect(
      registry
        .list()
        .filter((a) => !a.builtIn)
        .map((a) => a.name),
    ).toEqual(loaded);
  });

  it('loads the example plugin from examples/', async () => {
    const registry = new AssignorRegistry();
    const repoRoot = path.resolve(__dirname, '../../../..');
    expect(
      await loadAssignorPlugins(registry, ['./examples/assignor-plugin/least-loaded-assignor.ts'], { cwd: repoRoot }),
    ).toEqual(['least-loaded']);
    const result = registry.run('least-loaded', { partitionsPerTopic: { t: 3 } }, [
      { memberId: 'b', subscription: { topics: ['t'] } },
      { memberId: 'a', subscription: { topics: ['t'] } },
    ]);
    expect(result).toEqual({
      b: { partitions: [{ topic: 't', partitions: [1] }] },
      a: { partitions: [{ topic: 't', partitions: [0, 2] }] },
    });
  });

  it.each([
    [
      'clashes with a built-in',
      'clash.js',
      `module.exports = ${assignorSource('sticky')};`,
      "ASSIGNOR_PLUGINS: plugin './clash.js' cannot be registered: cannot register assignor 'sticky' from plugin './clash.js': the name clashes with a built-in assignor",
    ],
    [
      'throws while loading',
      'throws.js',
      "throw new Error('no config');",
      "ASSIGNOR_PLUGINS: plugin './throws.js' threw while loading: no config",
    ],
    [
      'exports something else',
      'wrong.js',
      'module.exports = { hello: 1 };',
      "ASSIGNOR_PLUGINS: plugin './wrong.js' does not export an assignor as default export or 'assignors': its name must be a non-empty string",
    ],
    [
      'exports an empty list',
      'empty.js',
      'module.exports = [];',
      "ASSIGNOR_PLUGINS: plugin './empty.js' exports an empty list of assignors",
    ],
  ])('stops with a message naming a plugin that %s', async (_label, file, source, message) => {
    write(file, source);
    await expect(loadAssignorPlugins(new AssignorRegistry(), `./${file}`, { cwd: dir })).rejects.toThrow(message);
  });

  it('stops with a message naming a plugin that cannot be found', async () => {
    await expect(loadAssignorPlugins(new AssignorRegistry(), 'cohort-no-such-plugin', { cwd: dir })).rejects.toThrow(
      `ASSIGNOR_PLUGINS: plugin 'cohort-no-such-plugin' cannot be found from ${dir}`,
    );
  });

  it('refuses two plugins with the same name', async () => {
    write('x.js', `module.exports = ${assignorSource('dup')};`);
    write('y.js', `module.exports = ${assignorSource('dup')};`);
    await expect(loadAssignorPlugins(new AssignorRegistry(), './x.js,./y.js', { cwd: dir })).rejects.toThrow(
      "plugin './y.js' cannot be registered: cannot register assignor 'dup' from plugin './y.js': the name clashes with an assignor already registered from plugin './x.js'",
    );
  });
});
