import { RE2JS } from 're2js';
import { ConsumerGroupError } from './consumer-errors';

/**
 * Compiled patterns by source. Groups share a handful of patterns and every heartbeat of a regex member
 * resolves them again, so compiling once pays; the bound keeps a client sending ever new patterns from
 * growing the node's memory (the cache is simply emptied when full).
 */
const compiled = new Map<string, RE2JS>();
const MAX_COMPILED = 1024;

/**
 * A `subscribedTopicRegex` compiled with RE2 semantics (Kafka compiles it with RE2/J): RE2 matches in
 * time linear in the topic name, so no pattern can stall the node as a backtracking engine could. A
 * pattern RE2 refuses is Kafka's `INVALID_REGULAR_EXPRESSION` (128), with the parser's reason.
 */
export function compileTopicRegex(pattern: string): RE2JS {
  const known = compiled.get(pattern);
  if (known) return known;
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConsumerGroupError(
      'INVALID_REGULAR_EXPRESSION',
      `SubscribedTopicRegex \`${pattern}\` is not a valid regular expression: ${reason}.`,
    );
  }
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(pattern, regex);
  return regex;
}

/** Whether the whole topic name matches the pattern (Kafka's `Pattern.matcher(topic).matches()`). */
export function topicMatches(pattern: string, topic: string): boolean {
  return compileTopicRegex(pattern).matches(topic);
}

/**
 * Kafka's regex resolution (`GroupMetadataManager.refreshRegularExpressions`): each pattern with the
 * known topics whose whole name it matches. A pattern that no longer compiles (it cannot: each was
 * validated at its heartbeat) would match nothing rather than fail the group.
 */
export function resolveRegexes(patterns: Iterable<string>, topics: readonly string[]): Map<string, Set<string>> {
  const resolved = new Map<string, Set<string>>();
  for (const pattern of patterns) {
    const matched = new Set<string>();
    let regex: RE2JS | undefined;
    try {
      regex = compileTopicRegex(pattern);
    } catch {
      regex = undefined;
    }
    if (regex) for (const topic of topics) if (regex.matches(topic)) matched.add(topic);
    resolved.set(pattern, matched);
  }
  return resolved;
}

/** The topic names subscribed by name, with every topic a resolved pattern matched (the group's subscribed topics). */
export function withResolvedTopics(
  names: Iterable<string>,
  resolved: ReadonlyMap<string, ReadonlySet<string>>,
): Set<string> {
  const topics = new Set(names);
  for (const matched of resolved.values()) for (const topic of matched) topics.add(topic);
  return topics;
}
