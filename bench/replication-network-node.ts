import { join } from 'node:path';
import {
  DEFAULT_REPLICATION_CONFIG,
  FileCheckpointStorage,
  FileLog,
  NetworkTransport,
  RealClock,
  RedisMetadataStore,
  ReplicationNode,
  type ReplicationConfig,
} from '@cohort/replication';
import { produce } from '@cohort/replication/testing';
import { APPEND_KEY, APPEND_VALUE, type ReplicationSetup } from './harness/replicated-appends';

/**
 * One replication node of bench/replication-network.bench.ts, in its own process: Redis metadata,
 * the network transport on a free loopback port, segment logs under its data dir. Driven over IPC:
 * `status` (partition states as the metadata has them), `load` (appends with acks=all to the partitions
 * it leads, for a while, reporting each append's commit latency), `stop`.
 */
interface Settings extends ReplicationSetup {
  nodeId: number;
  clusterId: string;
  redisUrl: string;
  dataDir: string;
  numPartitions: number;
}

type Command = { type: 'status' } | { type: 'load'; durationMs: number; concurrency: number } | { type: 'stop' };

async function main(): Promise<void> {
  const s = JSON.parse(process.argv[2]) as Settings;
  const clock = new RealClock();
  const config: ReplicationConfig = {
    ...DEFAULT_REPLICATION_CONFIG,
    numPartitions: s.numPartitions,
    replicationFactor: s.replicationFactor,
    minInsyncReplicas: s.minInsyncReplicas,
    logFlushPolicy: s.logFlushPolicy,
    autoLeaderRebalanceEnable: false,
  };
  const store = await RedisMetadataStore.connect({
    url: s.redisUrl,
    clusterId: s.clusterId,
    clock,
    recoveryWindowMs: 0,
  });
  const transport = await NetworkTransport.start({ nodeId: s.nodeId, clock, listen: { host: '127.0.0.1', port: 0 } });
  const node = new ReplicationNode({
    nodeId: s.nodeId,
    endpoint: transport.endpoint,
    config,
    clock,
    store,
    transport,
    checkpoints: new FileCheckpointStorage(s.dataDir),
    openLog: (p) => FileLog.open(join(s.dataDir, `p${p}`)),
  });
  await node.start();

  process.on('message', (command: Command) => {
    void (async () => {
      if (command.type === 'status') {
        const states = await store.listPartitions();
        const ledHere = Array.from({ length: s.numPartitions }, (_, p) => p).filter(
          (p) => node.replicas.partition(p)?.role === 'leader',
        ).length;
        process.send?.({
          ledHere,
          states: states.map((st) => ({ partition: st.partition, leader: st.leader, isr: st.isr.length })),
        });
      } else if (command.type === 'load') {
        process.send?.(await load(node, s.numPartitions, command.durationMs, command.concurrency));
      } else {
        await node.stop();
        await transport.close();
        process.send?.({ stopped: true }, () => process.exit(0));
      }
    })();
  });
  process.send?.({ ready: true });
}

/** Appends one offset-commit-sized record at a time, `concurrency` in flight, round-robin over the led partitions. */
async function load(
  node: ReplicationNode,
  numPartitions: number,
  durationMs: number,
  concurrency: number,
): Promise<{ latenciesUs: number[]; failed: number; led: number }> {
  const led = Array.from({ length: numPartitions }, (_, p) => p).filter(
    (p) => node.replicas.partition(p)?.role === 'leader',
  );
  const latenciesUs: number[] = [];
  let failed = 0;
  if (led.length === 0) return { latenciesUs, failed, led: 0 };
  const end = Date.now() + durationMs;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const partition = led[next++ % led.length];
        const start = process.hrtime.bigint();
        try {
          await produce(
            node.replicas,
            partition,
            [{ key: APPEND_KEY, value: APPEND_VALUE, timestamp: Date.now() }],
            -1,
            30_000,
          );
          latenciesUs.push(Number(process.hrtime.bigint() - start) / 1e3);
        } catch {
          failed++;
        }
      }
    }),
  );
  return { latenciesUs, failed, led: led.length };
}

void main();
