import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Linux's default ephemeral range starts here; below it the kernel never picks a port by itself. */
const DEFAULT_EPHEMERAL_LOW = 32768;
const LOWEST = 10_000;
const ATTEMPTS = 50;

/** How many ports this process has drawn: each draw takes the next port of the process's own walk. */
let draws = 0;

/**
 * A loopback port that was free a moment ago, for a server a test starts under a port it must know in
 * advance (a node advertises its URL before it listens; redis-server takes --port). It is taken below
 * the kernel's ephemeral range, and checked by binding it: a port the kernel chose for `listen(0)`
 * would be one it may hand out again, to another test's `listen(0)` or to an outgoing connection, in
 * the second before the caller binds it (a client-cluster test once failed with EADDRINUSE that way).
 * Each process walks the range from a start of its own (its pid), a large prime apart per draw, so
 * parallel test workers do not draw the same ports.
 */
export async function freePort(): Promise<number> {
  const span = ephemeralLow() - LOWEST;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = LOWEST + ((process.pid * 7919 + draws++ * 104_729) % span);
    if (await bindable(port)) return port;
  }
  return kernelChosen();
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1000) return low;
  } catch {
    // Not Linux: assume its default.
  }
  return DEFAULT_EPHEMERAL_LOW;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function kernelChosen(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
