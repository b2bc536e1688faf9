import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CohortAdmin } from '@cohort/client/admin/cohort-admin';
import { CohortError } from '@cohort/client/errors/cohort-error';
import { allow } from '../support/acl-fixtures';
import { appPerFile } from '../support/app-per-file';
import { writeTokensFile } from '../support/auth-fixtures';

jest.setTimeout(60_000);

const TOKENS = { 'User:operator': 'operator-token', 'User:billing': 'billing-token' };
const secrets = mkdtempSync(join(tmpdir(), 'cohort-admin-acls-'));
afterAll(() => rmSync(secrets, { recursive: true, force: true }));

/** `client.admin().acls` against a node with authentication on: what it changes is what the node enforces. */
describe('CohortAdmin acls (e2e)', () => {
  const app = appPerFile({
    env: { AUTH_TOKENS_FILE: writeTokensFile(secrets, TOKENS), SUPER_USERS: 'User:operator' },
  });
  const operator = (): CohortAdmin => new CohortAdmin({ urls: [app.url], token: TOKENS['User:operator'] });
  const billing = (): CohortAdmin => new CohortAdmin({ urls: [app.url], token: TOKENS['User:billing'] });
  const describeCluster = allow('User:billing', 'DESCRIBE', 'CLUSTER', 'kafka-cluster');
  const readInvoices = allow('User:billing', 'READ', 'TOPIC', 'invoices');

  it('creates bindings that the node then enforces, lists them by filter and deletes them again', async () => {
    await expect(billing().cluster()).rejects.toMatchObject({ name: 'CLUSTER_AUTHORIZATION_FAILED', code: 31 });

    await expect(operator().acls.create([describeCluster, readInvoices])).resolves.toEqual([
      describeCluster,
      readInvoices,
    ]);
    await expect(billing().cluster()).resolves.toMatchObject({ nodes: expect.any(Array) });
    await expect(operator().acls.list({ principal: 'User:billing', resourceType: 'TOPIC' })).resolves.toEqual([
      readInvoices,
    ]);
    await expect(operator().acls.list()).resolves.toEqual(expect.arrayContaining([describeCluster, readInvoices]));

    await expect(operator().acls.delete([{ principal: 'User:billing', resourceType: 'CLUSTER' }])).resolves.toEqual([
      describeCluster,
    ]);
    await expect(billing().cluster()).rejects.toMatchObject({ name: 'CLUSTER_AUTHORIZATION_FAILED', code: 31 });
    await expect(operator().acls.list({ principal: 'User:billing' })).resolves.toEqual([readInvoices]);
  });

  it('refuses a create holding one invalid binding with INVALID_REQUEST and stores none of it', async () => {
    const before = await operator().acls.list();
    const refused = await operator()
      .acls.create([
        allow('User:billing', 'DESCRIBE', 'GROUP', 'billing'),
        { ...readInvoices, operation: 'PUBLISH' as never },
      ])
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CohortError);
    expect(refused).toMatchObject({ name: 'INVALID_REQUEST', code: 42, status: 400 });
    await expect(operator().acls.list()).resolves.toEqual(before);
  });

  it('refuses ACL changes to a principal without ALTER on the cluster, changing nothing', async () => {
    const before = await operator().acls.list();
    await expect(
      billing().acls.create([allow('User:billing', 'ALTER', 'CLUSTER', 'kafka-cluster')]),
    ).rejects.toMatchObject({ name: 'CLUSTER_AUTHORIZATION_FAILED', code: 31, status: 403 });
    await expect(billing().acls.delete([{ principal: 'User:billing' }])).rejects.toMatchObject({
      name: 'CLUSTER_AUTHORIZATION_FAILED',
    });
    await expect(operator().acls.list()).resolves.toEqual(before);
  });
});
