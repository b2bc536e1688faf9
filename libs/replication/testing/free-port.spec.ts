import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from './free-port';

describe('freePort', () => {
  it('gives a bindable loopback port below the kernel ephemeral range', async () => {
    const port = await freePort();
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(low);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('does not give a port that is taken', async () => {
    const taken = new Set<number>();
    const servers = [];
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
      servers.push(server);
      expect(taken.has(port)).toBe(false);
      taken.add(port);
    }
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });
});
