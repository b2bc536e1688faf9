import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { appPerFile } from '../support/app-per-file';
import { startNode } from '../support/spawned-node';
import { tempDataDir } from '../support/test-app';

jest.setTimeout(120_000);

/** What a person meets first: the root address, the headers, a port already taken. */
describe('first contact (e2e)', () => {
  const app = appPerFile();

  it('sends a browser from / to the dashboard, and tells other clients where things are', async () => {
    const browser = await app.http().get('/').set('Accept', 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8');
    expect(browser.status).toBe(302);
    expect(browser.headers.location).toBe('/ui/');
    const { body } = await app.http().get('/').set('Accept', 'application/json').expect(200);
    expect(body).toMatchObject({ dashboard: '/ui/', openapi: '/docs', health: '/health/ready' });
  });

  it('sends no X-Powered-By header, on answers and errors alike', async () => {
    for (const path of ['/', '/v1/groups', '/v1/groups/nope', '/health/live', '/docs-json', '/metrics', '/nothing']) {
      const response = await app.http().get(path);
      expect({ path, poweredBy: response.headers['x-powered-by'] }).toEqual({ path, poweredBy: undefined });
    }
  });

  it('npm start says it is building before the silent build, and how long it takes', () => {
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts
      .start;
    const steps = start.split('&&').map((step) => step.trim());
    expect(steps.indexOf('node scripts/start-notice.js')).toBe(0);
    expect(steps.indexOf('npm run build')).toBeGreaterThan(0);
    const said = execFileSync(process.execPath, ['scripts/start-notice.js'], { encoding: 'utf8' });
    expect(said.trim().split('\n')).toHaveLength(1);
    expect(said).toMatch(/building the server and the dashboard first .*about 40 s/);
  });

  it('says in one line, without a stack trace, that PORT is taken, and exits 1', async () => {
    const busy: Server = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const port = (busy.address() as { port: number }).port;
    const data = tempDataDir();
    try {
      const node = startNode(data.dir, { PORT: String(port) });
      expect(await node.exited).toBe(1);
      const lines = node.stderr().trim().split('\n');
      // Nothing on stdout says more (Nest's own listen error is left to debug).
      expect(node.lines().filter((l) => l.level >= 50)).toEqual([]);
      expect(lines).toEqual([
        `cohort: failed to start: port ${port} on 127.0.0.1 is already in use (PORT=${port}): stop the process that listens there, or set PORT to a free port`,
      ]);
    } finally {
      busy.close();
      data.remove();
    }
  });
});
