import { Command } from 'commander';
import type { CommandContext } from './command-context';
import { run } from './run-action';

export function clusterCommand(context: CommandContext): Command {
  const cluster = new Command('cluster').description('nodes and __consumer_offsets partitions');

  cluster
    .command('describe')
    .description('the cluster id, the controller and every node')
    .action(
      run(async () => {
        const info = await context.admin().cluster();
        context.output().result(info, (c) => ({
          columns: ['CLUSTER-ID', 'NODE-ID', 'URL', 'ALIVE', 'CONTROLLER'],
          rows: c.nodes.map((n) => [c.clusterId, n.nodeId, n.url, n.alive, n.nodeId === c.controllerId ? 'yes' : 'no']),
        }));
      }),
    );

  cluster
    .command('partitions')
    .description('each __consumer_offsets partition: leader, epoch, replicas, ISR, high watermark')
    .action(
      run(async () => {
        const partitions = await context.admin().clusterPartitions();
        context.output().result(partitions, (all) => ({
          columns: [
            'PARTITION',
            'LEADER',
            'EPOCH',
            'REPLICAS',
            'ISR',
            'HIGH-WATERMARK',
            'LOG-END-OFFSET',
            'UNDER-REPLICATED',
          ],
          rows: all.map((p) => [
            p.partition,
            p.leader,
            p.leaderEpoch,
            p.replicas.join(','),
            p.isr.join(','),
            p.highWatermark,
            p.logEndOffset,
            p.isr.length < p.replicas.length ? 'yes' : 'no',
          ]),
        }));
      }),
    );

  return cluster;
}
