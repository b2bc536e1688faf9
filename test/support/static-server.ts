import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StaticRoute {
  /** Served from this file (read on each request, so a rebuilt bundle is picked up)... */
  file?: string;
  /** ...or this text. */
  body?: string;
  type: string;
}

export interface StaticServer {
  /** `http://127.0.0.1:<port>`: the pages' origin. */
  readonly origin: string;
  close(): Promise<void>;
}

/** A tiny HTTP server for test pages and the bundles they load, on a free loopback port. */
export async function serveStatic(routes: Record<string, StaticRoute>): Promise<StaticServer> {
  const server = createServer((request, response) => {
    const route = routes[new URL(request.url ?? '/', 'http://x').pathname];
    if (!route) {
      response.writeHead(404).end('not found');
      return;
    }
    const body = route.file ? readFileSync(route.file) : (route.body ?? '');
    response.writeHead(200, { 'content-type': route.type, 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
