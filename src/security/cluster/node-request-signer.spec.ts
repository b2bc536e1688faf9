import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CohortConfig } from '../../config/cohort-config';
import { validateEnvironment } from '../../config/validate-environment';
import { NODE_AUTH_HEADER, NodeRequestSigner, type SignedRequest } from './node-request-signer';

const dir = mkdtempSync(join(tmpdir(), 'cohort-signer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function signer(secret: string): NodeRequestSigner {
  const path = join(dir, `${secret.slice(0, 4)}.secret`);
  writeFileSync(path, `${secret}\n`);
  return new NodeRequestSigner(new CohortConfig(validateEnvironment({ CLUSTER_SECRET_FILE: path })));
}

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const call: SignedRequest = {
  method: 'POST',
  url: '/v1/groups/g/offsets',
  body: '{"topics":[]}',
  principal: 'User:alice',
};

describe('NodeRequestSigner', () => {
  const a = signer('a'.repeat(40));

  it('verifies its own signature once: a replay of the same headers is refused', () => {
    const headers = a.headersFor(3, call);
    expect(headers['x-cohort-principal']).toBe('User:alice');
    expect(a.verify(headers[NODE_AUTH_HEADER], call)).toEqual({ nodeId: 3 });
    expect(a.verify(headers[NODE_AUTH_HEADER], call)).toEqual({ refused: 'replayed request' });
  });

  it('refuses another secret and any change to method, URL, body or principal', () => {
    const other = signer('b'.repeat(40));
    expect(other.verify(a.headersFor(3, call)[NODE_AUTH_HEADER], call)).toEqual({
      refused: 'the signature does not prove the cluster secret',
    });
    for (const changed of [
      { method: 'DELETE' },
      { url: '/v1/groups/h/offsets' },
      { body: '{"topics":[1]}' },
      { principal: 'User:admin' },
    ]) {
      expect(a.verify(a.headersFor(3, call)[NODE_AUTH_HEADER], { ...call, ...changed })).toHaveProperty('refused');
    }
  });

  it('refuses a stale signature, a malformed header and none', () => {
    const old = signer('c'.repeat(40));
    old.now = () => Date.now() - 60_000;
    expect(a.verify(old.headersFor(1, call)[NODE_AUTH_HEADER], call)).toHaveProperty('refused');
    for (const header of [
      undefined,
      '',
      'v1 node=1',
      ['v1'],
      `v1 node=1,ts=1,nonce=${'z'.repeat(32)},mac=${'0'.repeat(64)}`,
    ])
      expect(a.verify(header, call)).toHaveProperty('refused');
  });

  it('fuzzed headers are refused with a reason, never thrown on', () => {
    const header = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc
        .tuple(fc.nat(), fc.integer({ min: Date.now() - 10_000, max: Date.now() + 10_000 }), hex(16), hex(32))
        .map(([n, ts, nonce, mac]) => `v1 node=${n},ts=${ts},nonce=${nonce},mac=${mac}`),
    );
    fc.assert(
      fc.property(header, fc.string(), (value, principal) => {
        expect(a.verify(value, { ...call, principal })).toHaveProperty('refused');
      }),
      { numRuns: 300 },
    );
  });
});
