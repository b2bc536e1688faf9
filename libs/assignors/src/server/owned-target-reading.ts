/**
 * How a member's current target is read (group-model.ts), kept with the list it was read from. The
 * coordinator hands each member's target as a list it froze and shares until that member's target
 * changes (it lists a target once), so in a stable group nearly every list a call gets is one the
 * previous call read. The reading that depends on the list alone — Java's order of its topics (by
 * `Uuid.hashCode` of their names) and of each topic's partitions — is kept; what depends on the call
 * (the numbers this call's table gives the topics, their partition counts) is checked at every use.
 * Only a list frozen all the way down is kept: nothing can have changed it since it was read. A list
 * that is not (a plugin's, a test's) is read afresh each time.
 */
import type { TopicPartitions } from '@cohort/protocol';

/** group-model.ts's OwnedTopic and TopicTable, as far as this file needs them. */
interface OwnedTopic {
  topic: number;
  partitions: number[];
  original?: TopicPartitions;
}
interface TopicTable {
  readonly topics: readonly { name: string; partitions: number }[];
  numberOf(name: string): number;
  /** The topic's number if the call has numbered it already. */
  known(name: string): number | undefined;
}

/** A kept reading's target carries its reading, so the unchanged target's wire form is found without a lookup. */
type KeptOwned = OwnedTopic[] & { reading?: Reading };

interface Reading {
  /** The target in Java's order, topics numbered by the table of the call that last used it. */
  owned: KeptOwned;
  /** Per entry of `owned`: the topic's name and its largest partition. */
  names: string[];
  largest: number[];
  /** The target as the assignor returns an unchanged one (made when first needed), frozen. */
  wire: TopicPartitions[] | null;
}

/** null: read, and not to be kept (not frozen all the way down, or a negative partition). */
const readings = new WeakMap<readonly TopicPartitions[], Reading | null>();

/** Nothing in `list` can change any more, down to its partitions (none negative). */
export function frozenThroughout(list: readonly TopicPartitions[]): boolean {
  if (!Object.isFrozen(list)) return false;
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    if (!Object.isFrozen(entry) || !Object.isFrozen(entry.partitions)) return false;
    for (let k = 0; k < entry.partitions.length; k++) if (!(entry.partitions[k] >= 0)) return false;
  }
  return true;
}

/**
 * The target `list` as `read` reads it in `table`, from what an earlier call kept when it can be:
 * `read(list, table, Infinity)` must read it without dropping partitions beyond a topic's size, and
 * give the same topics the same Java order whatever their numbers (as with Kafka's topic ids).
 */
export function readOwnedKept<Table extends TopicTable>(
  list: readonly TopicPartitions[],
  table: Table,
  read: (list: readonly TopicPartitions[], table: Table, unbounded: boolean) => OwnedTopic[],
): OwnedTopic[] {
  let reading = readings.get(list);
  if (reading === undefined) {
    if (!frozenThroughout(list)) {
      readings.set(list, null);
      return read(list, table, false);
    }
    const owned: KeptOwned = read(list, table, true);
    for (const entry of owned) Object.freeze(entry.partitions);
    const names = owned.map((entry) => table.topics[entry.topic].name);
    const largest = owned.map((entry) => entry.partitions.reduce((a, b) => (b > a ? b : a), -1));
    reading = { owned, names, largest, wire: null };
    owned.reading = reading;
    readings.set(list, reading);
  } else if (reading === null) return read(list, table, false);
  const { owned, names, largest } = reading;
  let renumbered: KeptOwned | null = null;
  for (let i = 0; i < owned.length; i++) {
    let topic = table.known(names[i]);
    if (topic === undefined) {
      // A topic this call meets first here (so no other of the list's yet): number the list's topics
      // in the list's order, as reading the list would.
      for (let k = 0; k < list.length; k++) if (list[k].partitions.length > 0) table.numberOf(list[k].topic);
      topic = table.numberOf(names[i]);
    }
    // A partition beyond the topic's size (it shrank, or is gone): read the list afresh.
    if (!(largest[i] < table.topics[topic].partitions)) return read(list, table, false);
    if (topic !== owned[i].topic) {
      if (renumbered === null) {
        renumbered = owned.slice();
        renumbered.reading = reading;
      }
      renumbered[i] = { topic, partitions: owned[i].partitions, original: owned[i].original };
    }
  }
  if (renumbered !== null) reading.owned = renumbered;
  return reading.owned;
}

/** `list` was read by readOwnedKept and found frozen throughout (so nothing can change it any more). */
export function isFrozenReading(list: readonly TopicPartitions[]): boolean {
  const reading = readings.get(list);
  return reading !== undefined && reading !== null;
}

/** The wire form of an unchanged target read by readOwnedKept, built once and kept; null when not kept. */
export function keptWire(owned: readonly OwnedTopic[], build: () => TopicPartitions[]): TopicPartitions[] | null {
  const reading = (owned as KeptOwned).reading;
  if (reading === undefined || reading.owned !== owned) return null;
  if (reading.wire === null) {
    const wire = build();
    for (const entry of wire) Object.freeze(entry);
    reading.wire = Object.freeze(wire) as TopicPartitions[];
  }
  return reading.wire;
}
