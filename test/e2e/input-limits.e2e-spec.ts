import { WebSocket } from 'ws';
import { appPerFile } from '../support/app-per-file';
import { tryConnect } from '../support/auth-fixtures';
import { eventually } from '../support/group-member';
import { sample } from '../support/prometheus-sample';

// Real sockets carrying megabytes on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(60_000);

const MIB = 1024 * 1024;

/**
 * What all connections together hold of messages not yet whole (docs/security.md, "Limits"): a websocket
 * frame is kept until its whole payload is there, so clients that start large frames and stall held up
 * to MAX_PAYLOAD_BYTES each — a thousand from one address, within MAX_CONNECTIONS_PER_IP, made a node
 * hold over 900 MB, more than many containers allow it.
 */
const node = appPerFile({ env: { MAX_SOCKET_INPUT_BUFFER_BYTES: String(3 * MIB) } });

interface StalledSender {
  socket: WebSocket;
  closed: Promise<void>;
}

/**
 * A raw websocket that completes engine.io's handshake, then sends the header of a 1,000,000-byte frame
 * and `bytes` of its payload, and stops there.
 */
function stalledSender(url: string, bytes: number): StalledSender {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
  socket.on('error', () => undefined);
  socket.once('message', () => {
    // A text frame of 1,000,000 bytes (64-bit length), masked with zeros, written below ws's framing.
    const header = Buffer.from([0x81, 0xff, 0, 0, 0, 0, 0, 0x0f, 0x42, 0x40, 0, 0, 0, 0]);
    const raw = (socket as unknown as { _socket: { write(data: Buffer): void } })._socket;
    raw.write(Buffer.concat([header, Buffer.alloc(bytes, 0x61)]));
  });
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

const closes = async (): Promise<number> => {
  const metrics = await node.http().get('/metrics').expect(200);
  return sample(metrics.text, 'cohort_socket_input_limit_closes_total', {}) ?? 0;
};

describe('messages not yet whole, over all connections', () => {
  it('closes the connections holding the most once all together pass MAX_SOCKET_INPUT_BUFFER_BYTES, and answers the rest', async () => {
    // Eight stall with 900,000 bytes each: three fit in 3 MiB, so five are closed, whatever the order of arrival.
    const senders = Array.from({ length: 8 }, () => stalledSender(node.url, 900_000));
    await eventually(async () => (await closes()) === 5, 'five connections closed');
    const open = () => senders.filter((s) => s.socket.readyState === WebSocket.OPEN).length;
    await eventually(async () => open() === 3, 'the closes reaching the clients');

    // A client whose 600 KB message arrives while the three hold 2.7 MB tips the total over: a stalled
    // sender, holding more than the average, is closed instead of it, and its request is answered.
    const client = await tryConnect(node.url);
    if (!client.connected) throw new Error(client.message);
    const answer = await client.socket.timeout(20_000).emitWithAck('ListGroups', { note: 'x'.repeat(600_000) });
    expect(typeof (answer as { errorCode?: unknown }).errorCode).toBe('number');
    expect(await closes()).toBe(6);
    await eventually(async () => open() === 2, 'one more stalled sender closed');
    await expect(client.socket.timeout(5000).emitWithAck('ListGroups', {})).resolves.toMatchObject({ errorCode: 0 });
    client.socket.close();
    for (const sender of senders) sender.socket.terminate();
  });
});
