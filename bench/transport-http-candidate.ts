import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fromWire, toWire } from '../libs/replication/src/transport/network/wire-value';

/**
 * The HTTP/1.1 candidates of the transport benchmark (not used by Cohort itself): POST /rpc/<kind>
 * over keep-alive connections, the body either JSON with Buffers as base64 (the obvious way) or the same
 * JSON + raw blobs encoding the TCP transport uses (to separate the protocol's cost from the codec's).
 */
export type HttpCodec = 'json-base64' | 'json-blobs';

export function encodeBody(value: unknown, codec: HttpCodec): Buffer {
  if (codec === 'json-base64')
    return Buffer.from(
      JSON.stringify(value, (_k, v) => (isSerializedBuffer(v) ? { $b64: Buffer.from(v.data).toString('base64') } : v)),
    );
  const wire = toWire(value);
  const json = Buffer.from(wire.json);
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(json.length, 0);
  return Buffer.concat([head, json, ...wire.blobs]);
}

export function decodeBody(body: Buffer, codec: HttpCodec): unknown {
  if (codec === 'json-base64')
    return JSON.parse(body.toString(), (_k, v) =>
      v && typeof v === 'object' && typeof v.$b64 === 'string' ? Buffer.from(v.$b64, 'base64') : v,
    );
  const jsonBytes = body.readUInt32BE(0);
  return fromWire(body.toString('utf8', 4, 4 + jsonBytes), body.subarray(4 + jsonBytes));
}

function isSerializedBuffer(v: unknown): v is { type: 'Buffer'; data: number[] } {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as { type?: unknown }).type === 'Buffer' &&
    Array.isArray((v as { data?: unknown }).data)
  );
}

export async function startHttpServer(
  codec: HttpCodec,
  handle: (kind: string, body: unknown) => Promise<unknown>,
): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const kind = (req.url ?? '').replace('/rpc/', '');
      handle(kind, decodeBody(Buffer.concat(chunks), codec)).then((response) => {
        const out = encodeBody(response, codec);
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': out.length });
        res.end(out);
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

export class HttpRpcClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });

  constructor(
    private readonly port: number,
    private readonly codec: HttpCodec,
  ) {}

  send(kind: string, body: unknown): Promise<unknown> {
    const payload = encodeBody(body, this.codec);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          method: 'POST',
          path: `/rpc/${kind}`,
          agent: this.agent,
          headers: { 'content-length': payload.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(decodeBody(Buffer.concat(chunks), this.codec)));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
