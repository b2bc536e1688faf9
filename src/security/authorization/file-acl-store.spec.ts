import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AclBinding } from '@cohort/protocol';
import { tempDataDir } from '../../../test/support/test-app';
import { FileAclStore } from './file-acl-store';

const READ: AclBinding = {
  principal: 'User:a',
  host: '*',
  resourceType: 'GROUP',
  resourceName: 'g',
  patternType: 'LITERAL',
  operation: 'READ',
  permission: 'ALLOW',
};
const DENY: AclBinding = { ...READ, operation: 'DELETE', permission: 'DENY' };

describe('FileAclStore', () => {
  const dirs: { remove(): void }[] = [];
  const dataDir = () => {
    const dir = tempDataDir('cohort-acls-');
    dirs.push(dir);
    return dir.dir;
  };
  afterAll(() => dirs.forEach((d) => d.remove()));

  it('starts empty, and keeps what was added and not removed across a restart', async () => {
    const dir = dataDir();
    const store = new FileAclStore(dir);
    expect(await store.load()).toEqual([]);
    expect(await store.add([READ, DENY, READ])).toEqual(
      [READ, DENY].sort((a, b) => (a.operation < b.operation ? -1 : 1)),
    );
    const { removed, all } = await store.remove([DENY, { ...DENY, resourceName: 'absent' }]);
    expect(removed).toEqual([DENY]);
    expect(all).toEqual([READ]);
    expect(await new FileAclStore(dir).load()).toEqual([READ]);
    // Replaced by rename: no temporary file is left behind.
    expect(readdirSync(dir)).toEqual(['acls.json']);
  });

  it('applies concurrent changes one after another, losing none', async () => {
    const dir = dataDir();
    const store = new FileAclStore(dir);
    await store.load();
    const names = Array.from({ length: 10 }, (_, i) => `g${i}`);
    await Promise.all(names.map((resourceName) => store.add([{ ...READ, resourceName }])));
    expect((await new FileAclStore(dir).load()).map((b) => b.resourceName).sort()).toEqual([...names].sort());
    // Ten fsynced rewrites in a row: seconds when the disk is busy, past Jest's default 5.
  }, 30_000);

  it('refuses to start from a file that does not hold valid bindings, naming the file and the binding', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'acls.json'), JSON.stringify({ acls: [READ, { ...READ, operation: 'FLY' }] }));
    await expect(new FileAclStore(dir).load()).rejects.toThrow(
      /acls\.json: invalid ACL binding: acls\.1\.operation must be one of/,
    );
    writeFileSync(join(dir, 'acls.json'), '[]');
    await expect(new FileAclStore(dir).load()).rejects.toThrow(/is not an ACL file/);
    expect(JSON.parse(readFileSync(join(dir, 'acls.json'), 'utf8'))).toEqual([]);
  });
});
