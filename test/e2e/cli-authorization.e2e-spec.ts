import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@cohort/cli/cli-program';
import { CohortAdmin } from '@cohort/client/admin/cohort-admin';
import { allow } from '../support/acl-fixtures';
import { appPerFile } from '../support/app-per-file';
import { writeTokensFile } from '../support/auth-fixtures';

jest.setTimeout(60_000);

const TOKENS = { 'User:operator': 'operator-token', 'User:viewer': 'viewer-token' };
const secrets = mkdtempSync(join(tmpdir(), 'cohort-cli-acls-'));
afterAll(() => rmSync(secrets, { recursive: true, force: true }));

/** `cohort --url <url> <args>` in this process, its output captured. */
async function cohort(url: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--url', url, ...args], {
    io: { out: (t) => void (out += t), err: (t) => void (err += t) },
    env: {},
  });
  return { code, out, err };
}

/**
 * The `cohort` command as a principal with only what Kafka's kafka-consumer-groups.sh needs for the same
 * view: DESCRIBE on the group (and on its topics for offsets), never DESCRIBE on the cluster.
 */
describe('the cohort command with authentication on (e2e)', () => {
  const app = appPerFile({
    env: { AUTH_TOKENS_FILE: writeTokensFile(secrets, TOKENS), SUPER_USERS: 'User:operator' },
  });

  it('describes a group --state for a principal that may DESCRIBE the group but not the cluster, naming the coordinator by node id', async () => {
    const operator = new CohortAdmin({ urls: [app.url], token: TOKENS['User:operator'] });
    await operator.createTopic('pay-a', 2);
    await operator.setOffsets('pay-g', [{ name: 'pay-a', partitions: [{ partitionIndex: 0, committedOffset: 5 }] }]);
    await operator.acls.create([
      allow('User:viewer', 'DESCRIBE', 'GROUP', 'pay-', 'PREFIXED'),
      allow('User:viewer', 'DESCRIBE', 'TOPIC', 'pay-', 'PREFIXED'),
    ]);
    const viewer = ['--token', TOKENS['User:viewer']];
    expect((await cohort(app.url, [...viewer, 'cluster', 'describe'])).err).toContain('CLUSTER_AUTHORIZATION_FAILED');

    const state = await cohort(app.url, [...viewer, 'groups', 'describe', 'pay-g', '--state']);
    expect(state.err).toBe('');
    expect(state.code).toBe(0);
    const [header, row] = state.out
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/\s{2,}/));
    expect(header.slice(0, 2)).toEqual(['GROUP', 'COORDINATOR (ID)']);
    expect(row.slice(0, 2)).toEqual(['pay-g', '0']);
    // The operator, who may see the cluster, gets the coordinator's address too.
    const full = await cohort(app.url, ['--token', TOKENS['User:operator'], 'groups', 'describe', 'pay-g', '--state']);
    expect(full.out).toMatch(/pay-g\s+http:\/\/127\.0\.0\.1:\d+ \(0\)/);
    // A group it may not describe is still refused.
    expect((await cohort(app.url, [...viewer, 'groups', 'describe', 'other', '--state'])).err).toContain(
      'GROUP_AUTHORIZATION_FAILED',
    );
  });
});
