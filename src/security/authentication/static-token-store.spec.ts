import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StaticTokenStore } from './static-token-store';
import { parseTokensFile, sha256 } from './tokens-file';

const hex = (token: string) => sha256(token).toString('hex');
const file = (principals: unknown) => JSON.stringify({ principals });

describe('parseTokensFile', () => {
  it('reads principals with their token digests', () => {
    const entries = parseTokensFile(file([{ name: 'User:billing', tokenSha256: hex('t1').toUpperCase() }]));
    expect(entries).toEqual([{ name: 'User:billing', tokenSha256: sha256('t1') }]);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['no principals array', '{"users":[]}', /expected \{ "principals"/],
    ['a name that is not a principal', file([{ name: 'billing', tokenSha256: hex('x') }]), /principals\[0\]\.name/],
    [
      'a digest that is not 64 hex digits',
      file([{ name: 'User:a', tokenSha256: 'abc' }]),
      /principals\[0\]\.tokenSha256/,
    ],
    ['a plain token instead of its digest', file([{ name: 'User:a', token: 'secret' }]), /tokenSha256/],
    [
      'the same token twice',
      file([
        { name: 'User:a', tokenSha256: hex('x') },
        { name: 'User:b', tokenSha256: hex('x') },
      ]),
      /twice/,
    ],
  ])('refuses %s, naming the problem', (_what, text, message) => {
    expect(() => parseTokensFile(text)).toThrow(message);
  });
});

describe('StaticTokenStore', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cohort-tokens-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the principal of a token and of a digest; unknown and near-miss tokens find none', () => {
    const path = join(dir, 't.json');
    writeFileSync(
      path,
      file([
        { name: 'User:a', tokenSha256: hex('alpha') },
        { name: 'User:b', tokenSha256: hex('beta') },
      ]),
    );
    const store = new StaticTokenStore(path);
    expect(store.principalOf('alpha')).toBe('User:a');
    expect(store.principalOf('beta')).toBe('User:b');
    expect(store.principalOfDigest(sha256('beta'))).toBe('User:b');
    for (const miss of ['', 'alph', 'alpha ', 'Alpha', hex('alpha')]) expect(store.principalOf(miss)).toBeNull();
  });

  it('reload takes a changed file; a broken one keeps the previous tokens and is reported', () => {
    const path = join(dir, 't.json');
    writeFileSync(path, file([{ name: 'User:a', tokenSha256: hex('alpha') }]));
    const reloaded: number[] = [];
    const failed: string[] = [];
    const store = new StaticTokenStore(path, {
      onReloaded: (n) => reloaded.push(n),
      onReloadFailed: (e) => failed.push(e.message),
    });
    writeFileSync(
      path,
      file([
        { name: 'User:b', tokenSha256: hex('beta') },
        { name: 'User:c', tokenSha256: hex('gamma') },
      ]),
    );
    store.reload();
    expect([store.principalOf('alpha'), store.principalOf('beta')]).toEqual([null, 'User:b']);
    writeFileSync(path, 'garbage');
    store.reload();
    expect(store.principalOf('beta')).toBe('User:b');
    expect(reloaded).toEqual([2]);
    expect(failed).toEqual([expect.stringMatching(/not JSON/)]);
  });

  it('sees a change of the file by itself (watch)', async () => {
    const path = join(dir, 't.json');
    writeFileSync(path, file([{ name: 'User:a', tokenSha256: hex('alpha') }]));
    const store = new StaticTokenStore(path, { onReloaded: () => undefined, onReloadFailed: () => undefined });
    store.watch();
    try {
      const seen = new Promise<void>((resolve) => {
        const check = () => (store.principalOf('alpha') === null ? resolve() : setTimeout(check, 20));
        check();
      });
      writeFileSync(path, file([{ name: 'User:b', tokenSha256: hex('beta') }]));
      await seen;
      expect(store.principalOf('beta')).toBe('User:b');
    } finally {
      store.close();
    }
  }, 15_000);
});
