import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The closing line CI reads: tests counted, and a suite that cannot run counted and named as failed. */
describe('summary reporter', () => {
  it('counts a suite that does not compile or cannot import as failed, and names it', () => {
    const run = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/jest/bin/jest.js'),
        '--config',
        'test/fixtures/summary-reporter/jest.config.js',
        '--ci',
      ],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines).toContain('tests: 2 passed, 3 failed');
    expect(run.stdout).toMatch(
      /suite failed to run: test\/fixtures\/summary-reporter\/does-not-compile\.fixture-spec\.js: /,
    );
    expect(run.stdout).toMatch(
      /suite failed to run: test\/fixtures\/summary-reporter\/import-fails\.fixture-spec\.js: .*no-such-module/,
    );
  }, 60_000);
});
