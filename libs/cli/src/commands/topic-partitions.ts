import { InvalidArgumentError } from 'commander';
import { UsageError } from './command-context';

/** `orders` or `orders:0,2`: kafka-consumer-groups.sh's `--topic` syntax. */
export interface TopicSelection {
  name: string;
  partitions?: number[];
}

export function parseTopicSelection(value: string): TopicSelection {
  const colon = value.lastIndexOf(':');
  if (colon < 0) {
    if (value === '') throw new UsageError('--topic needs a topic name');
    return { name: value };
  }
  const name = value.slice(0, colon);
  const list = value.slice(colon + 1).split(',');
  if (name === '' || list.some((p) => !/^\d+$/.test(p)))
    throw new UsageError(`--topic ${value}: expected TOPIC or TOPIC:PARTITION,PARTITION,...`);
  return { name, partitions: list.map(Number) };
}

/** An integer flag value (commander hands strings); `--partitions abc` is bad usage, not a server error. */
export function integer(min = Number.MIN_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
      throw new InvalidArgumentError(
        `expected an integer${min === Number.MIN_SAFE_INTEGER ? '' : ` of at least ${min}`}.`,
      );
    }
    return Number(value);
  };
}

/** Repeatable `--topic`: each occurrence adds a selection. */
export function collectTopics(value: string, previous: TopicSelection[] = []): TopicSelection[] {
  try {
    return [...previous, parseTopicSelection(value)];
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}
