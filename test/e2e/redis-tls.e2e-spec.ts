import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, until } from '@cohort/replication/testing';
import { tempDataDir } from '../support/test-app';
import { TestCertificates } from '../support/test-certificates';

// Child processes on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(60_000);

// REDIS_URL over TLS with a password (rediss://:password@host:port), against a redis-server this test
// starts with --tls-port and --requirepass and a CA it makes. The metadata store connects in a child
// process, because a private CA reaches Node's TLS only through NODE_EXTRA_CA_CERTS at process start,
// as an operator would give it to a node.

const run = promisify(execFile);
const dir = tempDataDir('cohort-redis-tls-');
const PASSWORD = 'tls/p@ss:word';
let redis: ChildProcess;
let port: number;
let certs: TestCertificates;

beforeAll(async () => {
  certs = TestCertificates.create(dir.dir);
  port = await freePort();
  redis = spawn(
    'redis-server',
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--tls-cert-file',
      certs.path('server.crt'),
      '--tls-key-file',
      certs.path('server.key'),
      '--tls-ca-cert-file',
      certs.path('ca.crt'),
      '--tls-auth-clients',
      'no',
      '--requirepass',
      PASSWORD,
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir.dir,
    ],
    { stdio: 'ignore' },
  );
  const probe = new Redis({
    host: '127.0.0.1',
    port,
    password: PASSWORD,
    tls: { ca: certs.read('ca.crt') },
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await until('redis-server with TLS to answer', async () => {
      if (probe.status !== 'ready') await probe.connect().catch(() => probe.disconnect());
      return (await probe.ping()) === 'PONG';
    });
  } finally {
    probe.disconnect();
  }
}, 60_000);

afterAll(() => {
  redis?.kill('SIGKILL');
  dir.remove();
});

/** Connects the cluster-mode metadata store to `url` in a child process and registers a node. */
async function storeConnects(url: string, trustCa: boolean): Promise<{ ok: boolean; error?: string }> {
  const script = `
import { RedisMetadataStore } from './libs/replication/src/metadata/redis/redis-metadata-store';
(async () => {
  const store = await RedisMetadataStore.connect({ url: process.env.REDIS_URL!, clusterId: 'tls-' + process.pid, connectTimeoutMs: 2500 });
  const registration = await store.registerNode(0, 'tcp://127.0.0.1:1', -1, 5000);
  await store.close();
  console.log(JSON.stringify({ ok: registration.nodeEpoch >= 0 }));
})().catch((e) => { console.log(JSON.stringify({ ok: false, error: String(e && e.message) })); process.exit(0); });
`;
  const env = { ...process.env, REDIS_URL: url, ...(trustCa ? { NODE_EXTRA_CA_CERTS: certs.path('ca.crt') } : {}) };
  const { stdout } = await run(join('node_modules', '.bin', 'tsx'), ['--eval', script], {
    cwd: process.cwd(),
    env,
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

describe('Redis over TLS with a password', () => {
  it('the metadata store connects with rediss://:password@ and the CA trusted', async () => {
    expect(await storeConnects(`rediss://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`, true)).toEqual({
      ok: true,
    });
  });

  it('fails with a wrong password, or when the server certificate is not trusted', async () => {
    const wrong = await storeConnects(`rediss://:wrong@127.0.0.1:${port}`, true);
    expect(wrong.ok).toBe(false);
    expect(wrong.error).toMatch(/WRONGPASS|invalid|NOAUTH|unreachable|Redis/i);
    const untrusted = await storeConnects(`rediss://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`, false);
    expect(untrusted.ok).toBe(false);
  });
});
