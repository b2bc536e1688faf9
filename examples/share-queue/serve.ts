/**
 * Serves the browser worker (index.html), the @cohort/client browser bundle and the jobs of the job
 * file (`/jobs?from=&to=`) on http://localhost:8080 (PORT to change it). Build the bundle first
 * (`npm run build:packages`) and let the node accept this origin:
 * `CORS_ORIGINS=http://localhost:8080 npm start`. Then: `npx tsx examples/share-queue/serve.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { readJobs } from './job-store';

const port = Number(process.env.PORT ?? 8080);
const bundle = join(__dirname, '../../libs/client/dist/browser/cohort-client.mjs');

if (!existsSync(bundle)) {
  console.error('no browser bundle yet: run `npm run build:packages` first');
  process.exit(1);
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/') {
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(readFileSync(join(__dirname, 'index.html')));
  } else if (url.pathname === '/cohort-client.mjs') {
    response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(bundle));
  } else if (url.pathname === '/jobs') {
    const from = Number(url.searchParams.get('from') ?? 0);
    const to = Number(url.searchParams.get('to') ?? Number.MAX_SAFE_INTEGER);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(readJobs().slice(from, to + 1)));
  } else {
    response.writeHead(404).end('not found');
  }
});
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  console.log(`open http://localhost:${actual}/ (the node needs CORS_ORIGINS=http://localhost:${actual})`);
});
