import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { tempDataDir } from '../support/test-app';

jest.setTimeout(120_000);

interface LogLine {
  level: number;
  msg: string;
  context?: string;
  summary?: Record<string, unknown>;
  req?: { method: string; url: string; headers: Record<string, string> };
  res?: { statusCode: number };
}

/**
 * What a person sees when a node starts (`npm start`): with stdout not a terminal, JSON lines; at info
 * one line says the URL, the mode, the data directory, the dashboard and how long start-up took, and
 * the per-partition and per-route lines are left to debug.
 */
describe('start-up output (e2e)', () => {
  it('prints one summary line among a few, as JSON when stdout is not a terminal', async () => {
    const data = tempDataDir();
    const child = spawn(process.execPath, [resolve(__dirname, '../support/run-ts.js'), 'src/main.ts'], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: data.dir, LOG_LEVEL: 'info', OFFSETS_TOPIC_NUM_PARTITIONS: '50' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      const summary = await new Promise<LogLine>((done, fail) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const line = stdout.split('\n').find((l) => l.includes('"summary"'));
          if (line) done(JSON.parse(line) as LogLine);
        });
        void exited.then((code) => fail(new Error(`the node exited (${code}) before its summary:\n${stdout}\n${stderr}`)));
      });
      expect(summary).toMatchObject({ level: 30, context: 'Cohort' });
      const fields = summary.summary!;
      expect(fields).toMatchObject({ mode: 'embedded', dataDir: data.dir, ready: true, loadingPartitions: 0, groups: 0 });
      expect(fields.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(fields.dashboard).toBe(`${fields.url}/ui`);
      expect(typeof fields.startupMs).toBe('number');
      expect(summary.msg).toContain(`Cohort listening on ${fields.url} (embedded mode, data in ${data.dir}); dashboard ${fields.url}/ui; ready in`);
      // The node answers where the line says it listens.
      expect((await fetch(`${fields.url}/health/ready`)).status).toBe(200);

      const lines = stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as LogLine);
      const info = lines.filter((l) => l.level >= 30);
      expect(info.length).toBeLessThanOrEqual(5);
      expect(info.filter((l) => /elected as the group coordinator|Mapped \{|dependencies initialized|loaded __consumer_offsets/.test(l.msg))).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await exited;
      data.remove();
    }
  });

  it('logs each HTTP request once, when it ends: a client mistake at info with its credentials redacted, a success at debug', async () => {
    const data = tempDataDir();
    const child = spawn(process.execPath, [resolve(__dirname, '../support/run-ts.js'), 'src/main.ts'], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: data.dir, LOG_LEVEL: 'info', OFFSETS_TOPIC_NUM_PARTITIONS: '50' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const lines = () => stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as LogLine);
    try {
      const url = await new Promise<string>((done, fail) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const summary = lines().find((l) => l.summary);
          if (summary) done(summary.summary!.url as string);
        });
        void exited.then((code) => fail(new Error(`the node exited (${code}) before its summary:\n${stdout}`)));
      });
      expect((await fetch(`${url}/health/ready`)).status).toBe(200);
      const refused = await fetch(`${url}/v1/topics`, { method: 'POST', headers: { authorization: 'Bearer secret-token', 'content-type': 'application/json' }, body: '{"name":"t","partitions":"many"}' });
      expect(refused.status).toBe(400);
      const logged = async (): Promise<LogLine[]> => {
        for (let i = 0; i < 100 && !lines().some((l) => l.req?.url === '/v1/topics'); i++) await new Promise((done) => setTimeout(done, 20));
        return lines().filter((l) => l.req);
      };
      const requests = await logged();
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ level: 30, req: { method: 'POST', url: '/v1/topics' }, res: { statusCode: 400 } });
      expect(requests[0].req!.headers.authorization).toBe('[redacted]');
      expect(stdout).not.toContain('secret-token');
    } finally {
      child.kill('SIGTERM');
      await exited;
      data.remove();
    }
  });
});
