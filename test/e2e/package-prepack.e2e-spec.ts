import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { partitionFor } from '@cohort/protocol';
import { PACKAGES, REPO_ROOT } from '../support/built-packages';

// tsup builds all three packages (declarations included) inside `npm pack`: about a minute on a loaded machine.
jest.setTimeout(300_000);

const run = promisify(execFile);

/** What a fresh clone holds for the packages: their sources and the build set-up, no dist/ and no stamps. */
function freshCheckout(root: string): void {
  for (const file of ['package.json', 'tsconfig.json', 'tsup.config.ts', 'scripts/build-packages.js'])
    cpSync(join(REPO_ROOT, file), join(root, file));
  for (const name of PACKAGES)
    cpSync(join(REPO_ROOT, 'libs', name), join(root, 'libs', name), {
      recursive: true,
      filter: (source) => !/[/\\](dist|\.build-stamp)$/.test(source),
    });
  // Installed dependencies are not what is tested: the checkout's own, linked.
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
}

const PROBE = (load: string) => `${load}
const client = new CohortClient({ urls: ['http://127.0.0.1:1'] });
const assigned = createRangeAssignor().assign({ partitionsPerTopic: { orders: 4 } }, [
  { memberId: 'm1', subscription: { topics: ['orders'] } },
  { memberId: 'm2', subscription: { topics: ['orders'] } },
]);
console.log(JSON.stringify({
  client: typeof CohortClient,
  acls: typeof client.admin().acls.list,
  notCoordinator: ErrorCode.NOT_COORDINATOR,
  placement: partitionFor('billing', 50),
  range: assigned,
}));
`;

/**
 * `npm pack ./libs/<name>` on a checkout where nothing was built: each package's prepack builds it,
 * so the tarballs hold code that an empty project installs and loads (ESM and CommonJS).
 */
describe('npm pack on a fresh checkout (e2e)', () => {
  const root = mkdtempSync(join(tmpdir(), 'cohort-prepack-'));
  const tarballs = join(root, 'tarballs');
  const appDir = join(root, 'app');
  let packed: { name: string; files: { path: string }[] }[] = [];

  beforeAll(async () => {
    const checkout = join(root, 'checkout');
    mkdirSync(join(checkout, 'scripts'), { recursive: true });
    mkdirSync(tarballs);
    mkdirSync(appDir);
    freshCheckout(checkout);
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--pack-destination', tarballs, ...PACKAGES.map((name) => `./libs/${name}`)],
      { cwd: checkout, maxBuffer: 16 * 1024 * 1024 },
    );
    packed = JSON.parse(stdout.slice(stdout.indexOf('[')));
    writeFileSync(
      join(appDir, 'package.json'),
      JSON.stringify({ name: 'prepack-check', version: '1.0.0', private: true }),
    );
    const files = readdirSync(tarballs).map((file) => join(tarballs, file));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', ...files], {
      cwd: appDir,
    });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('packs each package with its built code and declarations', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(['@cohort/assignors', '@cohort/client', '@cohort/protocol']);
    for (const { files } of packed) {
      const paths = files.map((f) => f.path);
      expect(paths).toEqual(
        expect.arrayContaining(['dist/index.cjs', 'dist/index.mjs', 'dist/index.d.ts', 'dist/index.d.mts']),
      );
      expect(paths.filter((path) => basename(path) === '.build-stamp')).toEqual([]);
    }
  });

  it.each([
    [
      'imports',
      'probe.mjs',
      "import { CohortClient } from '@cohort/client';\nimport { ErrorCode, partitionFor } from '@cohort/protocol';\nimport { createRangeAssignor } from '@cohort/assignors';",
    ],
    [
      'requires',
      'probe.cjs',
      "const { CohortClient } = require('@cohort/client');\nconst { ErrorCode, partitionFor } = require('@cohort/protocol');\nconst { createRangeAssignor } = require('@cohort/assignors');",
    ],
  ])('an empty project %s the installed packages and uses them', async (_, script, load) => {
    writeFileSync(join(appDir, script), PROBE(load));
    const { stdout } = await run(process.execPath, [script], { cwd: appDir });
    expect(JSON.parse(stdout)).toEqual({
      client: 'function',
      acls: 'function',
      notCoordinator: 16,
      placement: partitionFor('billing', 50),
      range: {
        m1: { partitions: [{ topic: 'orders', partitions: [0, 1] }] },
        m2: { partitions: [{ topic: 'orders', partitions: [2, 3] }] },
      },
    });
  });
});
