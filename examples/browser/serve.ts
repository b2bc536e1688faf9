/**
 * Serves examples/browser/index.html and the @cohort/client browser bundle on http://localhost:8080
 * (PORT to change it). Build the bundle first (`npm run build:packages`) and let the node accept this
 * origin: `CORS_ORIGINS=http://localhost:8080 npm start`. Then: `npx tsx examples/browser/serve.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const port = Number(process.env.PORT ?? 8080);
const bundle = join(__dirname, '../../libs/client/dist/browser');
const files: Record<string, [string, string]> = {
  '/': [join(__dirname, 'index.html'), 'text/html; charset=utf-8'],
  '/cohort-client.mjs': [join(bundle, 'cohort-client.mjs'), 'text/javascript'],
  '/cohort-client.mjs.map': [join(bundle, 'cohort-client.mjs.map'), 'application/json'],
};

if (!existsSync(files['/cohort-client.mjs'][0])) {
  console.error('no browser bundle yet: run `npm run build:packages` first');
  process.exit(1);
}

createServer((request, response) => {
  const file = files[new URL(request.url ?? '/', 'http://localhost').pathname];
  if (!file) {
    response.writeHead(404).end('not found');
    return;
  }
  response.writeHead(200, { 'content-type': file[1] }).end(readFileSync(file[0]));
}).listen(port, () => {
  console.log(`open http://localhost:${port}/ (the node needs CORS_ORIGINS=http://localhost:${port})`);
});
