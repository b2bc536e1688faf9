import { execFileSync, execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A network namespace joined to this one by a veth pair, so a client in it reaches the node from a
 * non-loopback address (every 127.x address is loopback, so no address of this namespace would do).
 * Nothing leaves the machine. Needs root (`ip netns`); names are unique per run and remove() undoes it.
 */
export class NetworkNamespace {
  readonly name: string;
  /** This namespace's end (where the node is reached) and the far end (the client's address). */
  readonly hostAddress: string;
  readonly clientAddress: string;
  private readonly hostLink: string;

  private constructor(tag: string, subnet: number) {
    this.name = `cohort-e2e-${tag}`;
    this.hostLink = `ch${tag}`;
    this.hostAddress = `10.${200 + (subnet >> 8)}.${subnet & 255}.1`;
    this.clientAddress = `10.${200 + (subnet >> 8)}.${subnet & 255}.2`;
  }

  static create(): NetworkNamespace {
    const tag = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`.slice(-10);
    const ns = new NetworkNamespace(tag, (process.pid * 7 + Date.now()) % (40 * 256));
    const clientLink = `cc${tag}`;
    const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
    try {
      ip('netns', 'add', ns.name);
      ip('link', 'add', ns.hostLink, 'type', 'veth', 'peer', 'name', clientLink);
      ip('link', 'set', clientLink, 'netns', ns.name);
      ip('addr', 'add', `${ns.hostAddress}/30`, 'dev', ns.hostLink);
      ip('link', 'set', ns.hostLink, 'up');
      ip('netns', 'exec', ns.name, 'ip', 'addr', 'add', `${ns.clientAddress}/30`, 'dev', clientLink);
      ip('netns', 'exec', ns.name, 'ip', 'link', 'set', clientLink, 'up');
      ip('netns', 'exec', ns.name, 'ip', 'link', 'set', 'lo', 'up');
    } catch (error) {
      ns.remove();
      throw error;
    }
    return ns;
  }

  /** Runs `node -e script` inside the namespace (cwd: the repository, so its packages resolve) and parses its last stdout line as JSON. */
  async node<T>(script: string, timeoutMs = 20_000): Promise<T> {
    const { stdout } = await run('ip', ['netns', 'exec', this.name, process.execPath, '-e', script], {
      cwd: process.cwd(),
      timeout: timeoutMs,
    });
    return JSON.parse(stdout.trim().split('\n').pop() ?? 'null') as T;
  }

  remove(): void {
    // Deleting one end of a veth pair deletes both; deleting the namespace frees whatever is left in it.
    for (const args of [
      ['link', 'del', this.hostLink],
      ['netns', 'del', this.name],
    ]) {
      try {
        execFileSync('ip', args, { stdio: 'pipe' });
      } catch {
        // already gone
      }
    }
  }
}

/** A script for NetworkNamespace.node: one REST call and one socket.io handshake to `url`, printed as JSON. */
export function probeScript(
  url: string,
  headers: Record<string, string> = {},
  auth: Record<string, unknown> = {},
): string {
  return `
const { io } = require('socket.io-client');
(async () => {
  const response = await fetch(${JSON.stringify(url)} + '/v1/groups', { headers: ${JSON.stringify(headers)} });
  const rest = { status: response.status, body: await response.json() };
  const socket = await new Promise((resolve) => {
    const s = io(${JSON.stringify(url)}, { transports: ['websocket'], reconnection: false, forceNew: true, auth: ${JSON.stringify(auth)} });
    s.once('connect', () => { s.close(); resolve({ connected: true }); });
    s.once('connect_error', (e) => { s.close(); resolve({ connected: false, message: e.message, data: e.data }); });
  });
  console.log(JSON.stringify({ rest, socket }));
})().catch((e) => { console.log(JSON.stringify({ error: String(e) + (e.cause ? ': ' + String(e.cause) : '') })); });
`;
}
