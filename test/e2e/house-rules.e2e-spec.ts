import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(ROOT, 'test/fixtures/house-rules');

/** `npm run lint`'s house rules, run over a small tree that breaks them (test/fixtures/house-rules). */
describe('house rules', () => {
  it('fail when production code imports a testing entry point, a testing/ folder or test/, and name each file', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/check-house-rules.js')], {
      cwd: FIXTURE,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr
      .trim()
      .split('\n')
      .filter((line) => line.includes('test machinery'))
      .sort();
    expect(lines).toEqual([
      'libs/demo/src/imports-entry-point.ts: production code must not import test machinery (@cohort/demo/testing)',
      'libs/demo/src/requires-deep-testing.ts: production code must not import test machinery (@cohort/other/log/testing/temp-dir)',
      'libs/demo/src/sub/imports-testing-folder.ts: production code must not import test machinery (../../testing/fake-store)',
      'src/imports-test-support.ts: production code must not import test machinery (../test/support/app)',
    ]);
    // Specs, the test machinery itself and production code that only imports production code pass.
    expect(run.stderr).not.toMatch(/uses-test-machinery\.spec\.ts|libs\/demo\/testing\/|production\.ts/);
  }, 60_000);

  it('fail on a file in bench/ that no section of the runner reaches, and on names in docs/architecture.md that exist nowhere', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/check-house-rules.js')], {
      cwd: FIXTURE,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('bench/') || line.startsWith('docs/'))
      .map((line) => line.replace(/ \(.*\)$/, ''))
      .sort();
    // Imported, and forked by file name (bench/worker.ts), files are reachable; an italic name is Kafka's, not checked.
    expect(lines).toEqual([
      'bench/orphan.bench.ts: no section of npm run bench runs it',
      'docs/architecture.md: `FixtureClass.absent` names nothing in the repository',
      'docs/architecture.md: `MISSING_SETTING` names nothing in the repository',
      'docs/architecture.md: `RenamedThing` names nothing in the repository',
      'docs/architecture.md: `libs/demo/src/moved-away.ts` names nothing in the repository',
      'docs/architecture.md: `npm run nothing-here` names nothing in the repository',
    ]);
  }, 60_000);

  it('fail on an import that runs up the declared floors of libs/coordinator, and on a folder that has no floor', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/check-house-rules.js')], {
      cwd: FIXTURE,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('libs/') && line.includes('scripts/check-layers.js'))
      .sort();
    // The shard importing the ports below it passes.
    expect(lines).toEqual([
      'libs/coordinator/src/newfolder/undeclared.ts: folder libs/coordinator/src/newfolder has no place in the declared layer order (scripts/check-layers.js)',
      'libs/coordinator/src/ports/reaches-up.ts: libs/coordinator/src/ports imports ../shard/shard, libs/coordinator/src/shard, which sits above it (scripts/check-layers.js)',
    ]);
  }, 60_000);

  it('fail on an import that runs up the declared floors of src, and on a folder of src that has no floor', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/check-house-rules.js')], {
      cwd: FIXTURE,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('src/') && line.includes('scripts/check-layers.js'))
      .sort();
    // The REST controller importing the security guard below it passes, and so does a file in the root of src.
    expect(lines).toEqual([
      'src/plugins/undeclared.ts: folder src/plugins has no place in the declared layer order (scripts/check-layers.js)',
      'src/security/reaches-up.ts: src/security imports ../http/controller, src/http, which sits above it (scripts/check-layers.js)',
    ]);
  }, 60_000);
});
