/**
 * The transport alone, for the `commits` section (forked by `bareSocketIo` in commit.bench.ts): a bare socket.io
 * server, in a process of its own as a node is, that acknowledges every OffsetCommit with the answer
 * Cohort gives a successful one (every partition of the request echoed with error 0), and does nothing
 * else: no validation, no coordinator, no log. What a client waits for here is what socket.io's
 * standard path and loopback cost by themselves, so Cohort's figures can be read against it as well as
 * against Redis. It sends its port to the parent over IPC once listening, and stops when asked to.
 */
import { createServer } from 'node:http';
import type { OffsetCommitRequest, OffsetCommitResponse } from '@cohort/protocol';
import { Server } from 'socket.io';

const http = createServer();
// As a node's gateway: socket.io's defaults but for the payload limit, which a commit never reaches.
const io = new Server(http, { maxHttpBufferSize: 1024 * 1024 });
io.on('connection', (socket) => {
  socket.on('OffsetCommit', (request: OffsetCommitRequest, ack: (answer: OffsetCommitResponse) => void) => {
    ack({
      errorCode: 0,
      topics: request.topics.map((topic) => ({
        name: topic.name,
        partitions: topic.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })),
      })),
    });
  });
});
http.listen(0, '127.0.0.1', () => {
  const address = http.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
// As the other benchmark workers, it stops when the parent asks (bench/harness/stop-worker.ts).
process.on('message', (message: { type?: string }) => {
  if (message.type !== 'stop') return;
  void io.close();
  process.exit(0);
});
