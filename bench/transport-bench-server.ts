import { NetworkTransport, RealClock } from '@cohort/replication';
import { fetchResponse, PAYLOADS } from './transport-payloads';
import { startHttpServer, type HttpCodec } from './transport-http-candidate';

/**
 * The serving side of bench/transport.bench.ts, in its own process (as a leader is): answers every fetch
 * with the prepared response of the size the request asks for (`maxRecords` of the first partition
 * selects the payload). Tells the parent its port over IPC.
 */
async function main(): Promise<void> {
  const candidate = process.argv[2];
  const responses = new Map(PAYLOADS.map((p) => [p.records, fetchResponse(p.records)]));
  const answer = async (body: unknown) =>
    responses.get((body as { partitions: { maxRecords: number }[] }).partitions[0].maxRecords) ?? responses.get(0);
  let port: number;
  if (candidate === 'tcp-frames') {
    const transport = await NetworkTransport.start({
      nodeId: 1,
      clock: new RealClock(),
      listen: { host: '127.0.0.1', port: 0 },
    });
    transport.listen(async (_from, request) => (await answer(request.body)) as never);
    port = transport.address.port;
  } else {
    port = (await startHttpServer(candidate.replace('http-', '') as HttpCodec, (_kind, body) => answer(body))).port;
  }
  process.send?.({ port });
}

void main();
