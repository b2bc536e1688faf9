import { Command } from 'commander';
import { CohortError } from '@cohort/client';
import type { AdminApi, GroupDescription, GroupOffsets } from '../admin-api';
import { type CommandContext, UsageError } from './command-context';
import { run } from './run-action';
import {
  epochHistoryTable,
  hasMemberEpochs,
  MEMBER_EPOCH_COLUMNS,
  memberEpochCells,
  STATE_EPOCH_COLUMNS,
  stateEpochCells,
} from './consumer-group-columns';
import { SHARE_PARTITION_COLUMNS, sharePartitionRows } from './share-partition-columns';

type Assignment = { partitions?: { topic: string; partitions: number[] }[] } | null;

/** Who holds each partition, from the members' `consumer` assignments. */
function owners(group: GroupDescription): Map<string, GroupDescription['members'][number]> {
  const byPartition = new Map<string, GroupDescription['members'][number]>();
  for (const member of group.members) {
    for (const entry of (member.assignment as Assignment)?.partitions ?? []) {
      for (const partition of entry.partitions) byPartition.set(`${entry.topic}:${partition}`, member);
    }
  }
  return byPartition;
}

/** kafka-consumer-groups.sh's columns, then Cohort's time lag (docs/lag.md) last, so Kafka's keep their places. */
const OFFSET_COLUMNS = [
  'GROUP',
  'TOPIC',
  'PARTITION',
  'CURRENT-OFFSET',
  'LOG-END-OFFSET',
  'LAG',
  'CONSUMER-ID',
  'HOST',
  'CLIENT-ID',
  'TIME-LAG',
];

/** A time lag for people: `0s`, `4.5s`, `7m30s`, `2h5m`, `3d4h`; null (unknown) stays null. */
export function formatTimeLag(ms: number | null): string | null {
  if (ms === null) return null;
  const s = Math.round(ms / 1000);
  if (ms < 60_000) return `${ms < 10_000 ? (ms / 1000).toFixed(1).replace(/\.0$/, '') : s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600)}h`;
}

/** kafka-consumer-groups.sh --describe --offsets: committed and assigned partitions, with their owner. */
function offsetRows(group: GroupDescription, offsets: GroupOffsets): unknown[][] {
  const held = owners(group);
  const rows = new Map<string, unknown[]>();
  for (const o of offsets.offsets) {
    const owner = held.get(`${o.topic}:${o.partition}`);
    rows.set(`${o.topic}:${o.partition}`, [
      group.groupId,
      o.topic,
      o.partition,
      o.committedOffset,
      o.logEndOffset,
      o.lag,
      owner?.memberId,
      owner?.clientHost,
      owner?.clientId,
      formatTimeLag(o.timeLagMs),
    ]);
  }
  // Assigned partitions without a committed offset yet, as Kafka lists them: no offset, no lag.
  for (const [key, owner] of held) {
    if (rows.has(key)) continue;
    const colon = key.lastIndexOf(':');
    rows.set(key, [
      group.groupId,
      key.slice(0, colon),
      Number(key.slice(colon + 1)),
      null,
      null,
      null,
      owner.memberId,
      owner.clientHost,
      owner.clientId,
      null,
    ]);
  }
  return [...rows.values()].sort(
    (a, b) => String(a[1]).localeCompare(String(b[1])) || (a[2] as number) - (b[2] as number),
  );
}

interface DescribeOptions {
  allGroups?: boolean;
  offsets?: boolean;
  members?: boolean;
  state?: boolean;
}

const MEMBER_COLUMNS = ['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS'];
const STATE_COLUMNS = ['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS'];

/**
 * One group as `describe` shows it: the value printed as JSON, its table rows, and for --members and
 * --state the consumer group columns of each row (`extra`), shown when a consumer group is described.
 */
interface Described {
  value: unknown;
  rows: unknown[][];
  extra?: unknown[][];
  consumer: boolean;
  /** A share group: its share partitions instead of committed offsets (the default view). */
  share?: boolean;
}

async function describeOne(admin: AdminApi, groupId: string, options: DescribeOptions): Promise<Described> {
  const group = await admin.describeGroup(groupId);
  const consumer = hasMemberEpochs(group);
  if (options.members) {
    const rows = group.members.map((m) => [
      group.groupId,
      m.memberId,
      m.groupInstanceId,
      m.clientHost,
      m.clientId,
      ((m.assignment as Assignment)?.partitions ?? []).reduce((n, t) => n + t.partitions.length, 0),
    ]);
    return { value: group, rows, extra: group.members.map((m) => memberEpochCells(group, m)), consumer };
  }
  if (options.state) {
    // The coordinator's address needs DESCRIBE on the cluster, which describing a group does not (as with
    // Kafka's --describe --state): a caller who may not see the cluster gets the coordinator's node id.
    const cluster = await admin.cluster().catch((error: unknown) => {
      if (error instanceof CohortError && error.name === 'CLUSTER_AUTHORIZATION_FAILED') return null;
      throw error;
    });
    const node = cluster?.nodes.find((n) => n.nodeId === group.coordinator);
    const coordinator = node ? `${node.url} (${node.nodeId})` : group.coordinator;
    const row = [group.groupId, coordinator, group.protocol, group.state, group.members.length];
    return { value: group, rows: [row], extra: [stateEpochCells(group)], consumer };
  }
  if (group.type === 'share') return { value: group, rows: sharePartitionRows(group), consumer, share: true };
  const offsets = await admin.fetchOffsets(groupId);
  return { value: { ...offsets, group }, rows: offsetRows(group, offsets), consumer };
}

export function groupsCommand(context: CommandContext): Command {
  const groups = new Command('groups').description(
    'list, describe and delete consumer groups; rebalance history and lag',
  );

  groups
    .command('list')
    .description('every group of the cluster')
    .option('--state <states>', 'only groups in these states (comma-separated: Empty,Stable,...)')
    .action(
      run(async (options: { state?: string }) => {
        const states = options.state
          ?.split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
        const listed = await context.admin().listGroups({ states });
        context.output().result(listed, (all) => ({
          columns: ['GROUP', 'TYPE', 'PROTOCOL-TYPE', 'STATE', 'MEMBERS', 'COORDINATOR'],
          rows: all.map((g) => [g.groupId, g.type, g.protocolType, g.state, g.members, g.coordinator]),
        }));
      }),
    );

  groups
    .command('describe [group]')
    .description(
      'a group, or with --all-groups every group, as kafka-consumer-groups.sh --describe shows it (offsets unless --members or --state)',
    )
    .option('--all-groups', 'every group of the cluster')
    .option('--offsets', 'partitions with committed offset, log end offset, lag and owner (the default)')
    .option(
      '--members',
      'members with their host, client id and partition count; of a consumer group also each member epoch, state, assignment, target and partitions pending revocation',
    )
    .option(
      '--state',
      'coordinator, assignment strategy, state and member count; of a consumer group also the group and target assignment epochs',
    )
    .action(
      run(async (groupId: string | undefined, options: DescribeOptions, command: Command) => {
        if ([options.offsets, options.members, options.state].filter(Boolean).length > 1)
          command.error('error: choose one of --offsets, --members, --state', { exitCode: 2 });
        if ((groupId === undefined) === !options.allGroups)
          throw new UsageError('give a group or --all-groups (not both)');
        const admin = context.admin();
        const ids = groupId !== undefined ? [groupId] : (await admin.listGroups()).map((g) => g.groupId).sort();
        const described: Described[] = [];
        for (const id of ids) described.push(await describeOne(admin, id, options));
        // Kafka 4's epoch columns, when a consumer group is among those shown.
        const epochs = described.some((d) => d.consumer);
        const columns = options.members
          ? [...MEMBER_COLUMNS, ...(epochs ? MEMBER_EPOCH_COLUMNS : [])]
          : options.state
            ? [...STATE_COLUMNS, ...(epochs ? STATE_EPOCH_COLUMNS : [])]
            : described.length > 0 && described.every((d) => d.share)
              ? SHARE_PARTITION_COLUMNS
              : OFFSET_COLUMNS;
        const rows = described.flatMap((d) =>
          d.rows.map((row, i) => (epochs && d.extra ? [...row, ...d.extra[i]] : row)),
        );
        const value = groupId !== undefined ? described[0].value : described.map((d) => d.value);
        context.output().result(value, () => ({ columns, rows }));
      }),
    );

  groups
    .command('delete <group>')
    .description('delete an Empty group and its offsets')
    .action(
      run(async (groupId: string) => {
        await context.admin().deleteGroup(groupId);
        context.output().result({ groupId, deleted: true }, () => `Deletion of group '${groupId}' was successful.\n`);
      }),
    );

  groups
    .command('rebalances <group>')
    .description(
      'the recent rebalances of a group with their reasons, newest first (of a consumer group: its epoch bumps and how long each took to converge)',
    )
    .action(
      run(async (groupId: string) => {
        const history = await context.admin().groupRebalances(groupId);
        if (history.some((r) => r.groupEpoch !== undefined)) return context.output().result(history, epochHistoryTable);
        context.output().result(history, (all) => ({
          columns: ['GENERATION', 'STARTED', 'DURATION-MS', 'MEMBERS', 'PROTOCOL', 'REASON'],
          rows: all.map((r) => [
            r.generationId,
            new Date(r.startedAt).toISOString(),
            r.durationMs ?? 'in progress',
            r.members,
            r.protocol,
            r.reason,
          ]),
        }));
      }),
    );

  groups
    .command('lag <group>')
    .description(
      "lag per partition, in offsets and in time, with Burrow's status (OK, WARN, ERR, STOP, STALL, UNKNOWN)",
    )
    .action(
      run(async (groupId: string) => {
        const lag = await context.admin().groupLag(groupId);
        context.output().result(lag, (l) => ({
          columns: ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'TIME-LAG', 'STATUS'],
          rows: [
            ...l.partitions.map((p) => [
              l.groupId,
              p.topic,
              p.partition,
              p.committedOffset,
              p.logEndOffset,
              p.lag,
              formatTimeLag(p.timeLagMs),
              p.status,
            ]),
            // The whole group: summed lag, the largest time lag (unknown, `-`, when no end offset was reported).
            [l.groupId, '(all)', null, null, null, l.totalLag, formatTimeLag(l.maxTimeLagMs), l.status],
          ],
        }));
      }),
    );

  return groups;
}
