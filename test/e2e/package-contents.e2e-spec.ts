import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensurePackagesBuilt, PACKAGES, REPO_ROOT } from '../support/built-packages';

/** Names that only the libraries' `testing` entry points define (libs/<lib>/testing). */
const TEST_MACHINERY =
  /\b(FakeCoordinator|FakeSocket|FakeTimers|StickyHarness|defineAbstractStickyAssignorTests|groupArbitrary|ClusterBuilder|SubscriptionMap)\b/;

/** What `npm pack` would publish holds the library's code only, not its test doubles and fixtures. */
describe('published @cohort packages (e2e)', () => {
  beforeAll(() => ensurePackagesBuilt(), 600_000);

  it.each(PACKAGES)(
    '@cohort/%s ships no test machinery',
    async (name) => {
      const cwd = join(REPO_ROOT, 'libs', name);
      const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--silent'], {
        cwd,
        maxBuffer: 16 * 1024 * 1024,
      });
      const files: string[] = JSON.parse(stdout)[0].files.map((f: { path: string }) => f.path);
      expect(files.length).toBeGreaterThan(1);
      expect(files.filter((file) => /(^|\/)testing(\/|$)|\.cases\./.test(file))).toEqual([]);
      const carrying = files.filter(
        (file) => /\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file) && TEST_MACHINERY.test(readFileSync(join(cwd, file), 'utf8')),
      );
      expect(carrying).toEqual([]);
    },
    120_000,
  );
});
