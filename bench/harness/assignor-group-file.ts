/**
 * A consumer group as a plain text file, so the bench hands Kafka's own classes (kafka-java/) exactly the
 * group Cohort's port is timed on, and reads back their assignment in the same grammar:
 *
 *   cohort-assignor-group 1
 *   topic <name> <partitions>
 *   member <id> <n> <subscribed name>×n <e> (<topic> <k> <partition>×k)×e
 *
 * One line per topic and member, in the group's order (which Kafka's member map depends on); each
 * member's target entries and partitions in the order given (Kafka's record order). Names are
 * percent-encoded (a `+` read back is a space, as Java's URLEncoder writes one), so none holds a space.
 */
import type { TopicPartitions } from '@cohort/protocol';
import type { ConsumerGroupMemberSpec } from '@cohort/assignors';

const HEADER = 'cohort-assignor-group 1';

export interface GroupFile {
  partitionsPerTopic: Record<string, number>;
  members: ConsumerGroupMemberSpec[];
}

export function writeGroupFile(group: GroupFile): string {
  const lines = [HEADER];
  for (const [name, partitions] of Object.entries(group.partitionsPerTopic))
    lines.push(`topic ${encodeURIComponent(name)} ${partitions}`);
  for (const member of group.members) {
    const parts = ['member', encodeURIComponent(member.memberId), String(member.subscribedTopics.length)];
    for (const name of member.subscribedTopics) parts.push(encodeURIComponent(name));
    parts.push(String(member.assignment.length));
    for (const { topic, partitions } of member.assignment)
      parts.push(encodeURIComponent(topic), String(partitions.length), ...partitions.map(String));
    lines.push(parts.join(' '));
  }
  return `${lines.join('\n')}\n`;
}

export function readGroupFile(text: string): GroupFile {
  const tokens = text.trim().split(/\s+/);
  let next = 0;
  const word = (): string => {
    if (next >= tokens.length) throw new Error('group file: ends in the middle of a line');
    return tokens[next++];
  };
  const name = (): string => decodeURIComponent(word().replace(/\+/g, ' '));
  const count = (): number => {
    const token = word();
    if (!/^\d+$/.test(token)) throw new Error(`group file: ${token} where a number belongs`);
    return Number(token);
  };
  if (`${word()} ${word()}` !== HEADER) throw new Error(`group file: does not start with "${HEADER}"`);
  const partitionsPerTopic: Record<string, number> = {};
  const members: ConsumerGroupMemberSpec[] = [];
  while (next < tokens.length) {
    const kind = word();
    if (kind === 'topic') {
      const topic = name();
      partitionsPerTopic[topic] = count();
    } else if (kind === 'member') {
      const memberId = name();
      const subscribedTopics = Array.from({ length: count() }, name);
      const assignment: TopicPartitions[] = [];
      for (let e = count(); e > 0; e--) {
        const topic = name();
        assignment.push({ topic, partitions: Array.from({ length: count() }, count) });
      }
      members.push({ memberId, subscribedTopics, assignment });
    } else throw new Error(`group file: unknown line kind ${kind}`);
  }
  return { partitionsPerTopic, members };
}

/**
 * How two assignments compare: `exact` when every member has the same entries in the same order
 * (topics and partitions as Kafka's maps and sets iterate them), `sameSets` when each member holds the
 * same partitions whatever the order; `difference` names the first member that differs.
 */
export function compareAssignments(
  ours: Record<string, readonly TopicPartitions[]>,
  theirs: Record<string, readonly TopicPartitions[]>,
): { exact: boolean; sameSets: boolean; difference?: string } {
  const ids = new Set([...Object.keys(ours), ...Object.keys(theirs)]);
  let exact = true;
  let difference: string | undefined;
  const key = (entries: readonly TopicPartitions[] | undefined, sorted: boolean): string => {
    const flat = (entries ?? []).flatMap(({ topic, partitions }) => partitions.map((p) => `${topic}:${p}`));
    return (sorted ? flat.sort() : flat).join(' ');
  };
  for (const id of ids) {
    if (key(ours[id], true) !== key(theirs[id], true)) {
      const show = (entries: readonly TopicPartitions[] | undefined): string => key(entries, true).slice(0, 120);
      return {
        exact: false,
        sameSets: false,
        difference: `${id}: ours [${show(ours[id])}], Kafka's [${show(theirs[id])}]`,
      };
    }
    const orderOf = (entries: readonly TopicPartitions[] | undefined): string =>
      JSON.stringify((entries ?? []).map(({ topic, partitions }) => [topic, partitions]));
    if (exact && orderOf(ours[id]) !== orderOf(theirs[id])) {
      exact = false;
      difference = `${id}: same partitions in another order, ours ${orderOf(ours[id]).slice(0, 120)}, Kafka's ${orderOf(theirs[id]).slice(0, 120)}`;
    }
  }
  return { exact, sameSets: true, difference };
}
