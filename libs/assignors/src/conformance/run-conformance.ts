/**
 * Runs an assignor through the generated scenarios and measures what a plugin author needs to know:
 * validity (a violation fails the check), determinism (so does a difference), balance in Kafka's
 * senses, stickiness, how static members fare, cooperative follow-up rounds when the assignor
 * declares 'cooperative', and time per call. Members behave like real consumers: between rebalances
 * each reports its partitions as owned with the new generation, and the assignor's
 * onAssignment/subscriptionUserData hooks are called for it.
 */
import type { MemberAssignment } from '@cohort/protocol';
import {
  supportedProtocolsOf,
  type MemberSubscription,
  type PartitionAssignor,
  type RebalanceProtocol,
} from '../api/partition-assignor';
import { validateAssignment } from '../validation/validate-assignment';
import {
  isFullyBalanced,
  kafkaBalanceViolations,
  minimalMovesWhenUniform,
  movement,
  strictBalanceViolations,
} from './assignment-metrics';
import { generateScenarios, type Group, type Scenario } from './scenarios';

type Result = Record<string, MemberAssignment>;

export interface ConformanceReport {
  assignor: string;
  protocols: RebalanceProtocol[];
  seed: number;
  scenarios: number;
  rebalances: number;
  calls: number;
  violationCount: number;
  violations: string[];
  determinism: { same: number; total: number };
  balance: { fully: number; kafka: number; strict: number; total: number };
  stickiness: { moved: number; forced: number; uniformMoved: number; uniformMinimal: number };
  staticMembers: { kept: number; total: number };
  cooperative: { rebalances: number; followUps: number; maxFollowUps: number } | null;
  timing: { meanMs: number; maxMs: number; largest: { partitions: number; members: number; ms: number } };
}

const MAX_FOLLOW_UPS = 4;
const MAX_LISTED_VIOLATIONS = 25;

function canonical(result: unknown): string {
  if (typeof result !== 'object' || result === null) return JSON.stringify(result);
  const entries = Object.entries(result as Result)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, a]) => [
      id,
      (a?.partitions ?? []).map((e) => `${e.topic}:${[...e.partitions].sort((x, y) => x - y).join(',')}`).sort(),
    ]);
  return JSON.stringify(entries);
}

function sameTopics(members: MemberSubscription[]): boolean {
  const first = [...new Set(members[0]?.subscription.topics ?? [])].sort().join('\u0000');
  return members.every((m) => [...new Set(m.subscription.topics)].sort().join('\u0000') === first);
}

function partitionCount(group: Group): number {
  return Object.values(group.cluster.partitionsPerTopic).reduce((n, c) => n + c, 0);
}

export interface ConformanceHooks {
  /** Called before every assign call, naming it (the watchdog reports the call that never returned). */
  beforeCall?(where: string): void;
  afterCall?(): void;
}

export function runConformance(assignor: PartitionAssignor, seed = 1, hooks: ConformanceHooks = {}): ConformanceReport {
  const protocols = supportedProtocolsOf(assignor);
  const protocol: RebalanceProtocol = protocols.includes('cooperative') ? 'cooperative' : 'eager';
  const scenarios = generateScenarios(seed);
  const report: ConformanceReport = {
    assignor: assignor.name,
    protocols,
    seed,
    scenarios: scenarios.length,
    rebalances: 0,
    calls: 0,
    violationCount: 0,
    violations: [],
    determinism: { same: 0, total: 0 },
    balance: { fully: 0, kafka: 0, strict: 0, total: 0 },
    stickiness: { moved: 0, forced: 0, uniformMoved: 0, uniformMinimal: 0 },
    staticMembers: { kept: 0, total: 0 },
    cooperative: protocol === 'cooperative' ? { rebalances: 0, followUps: 0, maxFollowUps: 0 } : null,
    timing: { meanMs: 0, maxMs: 0, largest: { partitions: 0, members: 0, ms: 0 } },
  };
  let totalMs = 0;
  const violation = (where: string, message: string): void => {
    report.violationCount++;
    if (report.violations.length < MAX_LISTED_VIOLATIONS) report.violations.push(`[${where}] ${message}`);
  };

  /** One call, timed; null when the assignor threw. */
  const call = (group: Group, where: string): Result | null => {
    hooks.beforeCall?.(`assignor '${assignor.name}', ${where}`);
    const started = performance.now();
    let result: Result;
    try {
      result = assignor.assign(structuredClone(group.cluster), structuredClone(group.members));
    } catch (error) {
      hooks.afterCall?.();
      violation(where, `assign threw: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
    hooks.afterCall?.();
    const ms = performance.now() - started;
    report.calls++;
    totalMs += ms;
    report.timing.maxMs = Math.max(report.timing.maxMs, ms);
    const partitions = partitionCount(group);
    if (partitions * group.members.length >= report.timing.largest.partitions * report.timing.largest.members) {
      report.timing.largest = { partitions, members: group.members.length, ms };
    }
    return result;
  };

  for (const scenario of scenarios) runScenario(scenario);
  report.timing.meanMs = report.calls > 0 ? totalMs / report.calls : 0;
  return report;

  function runScenario(scenario: Scenario): void {
    let previous: Result = {};
    let generation = 0;
    const steps = [{ name: 'first rebalance', apply: (g: Group) => g }, ...scenario.changes];
    let group = scenario.initial;
    for (const step of steps) {
      group = step.apply(group);
      const where = `${scenario.name} — ${step.name}`;
      const members = withHistory(group.members, previous, generation);
      const input: Group = { cluster: group.cluster, members };
      report.rebalances++;
      const result = call(input, where);
      if (result === null) return;
      const validation = validateAssignment(input.cluster, members, result, { protocol });
      for (const message of validation.violations) violation(where, message);
      if (!validation.valid) return;

      report.determinism.total++;
      const again = call(input, `${where} (repeated)`);
      if (again !== null && canonical(again) === canonical(result)) report.determinism.same++;
      else if (again !== null) violation(where, 'the same input gave a different assignment the second time');

      const final = protocol === 'cooperative' ? followUps(input, result, generation, where) : result;
      if (final === null) return;
      measure(input, final, scenario, step.name === 'restart' ? previous : null);
      previous = final;
      generation++;
    }
  }

  /** Each member's subscription as a consumer would send it after the previous rebalance. */
  function withHistory(members: MemberSubscription[], previous: Result, generation: number): MemberSubscription[] {
    return members.map((member) => {
      const existed = previous[member.memberId] !== undefined;
      const owned = previous[member.memberId]?.partitions ?? [];
      const subscription = { ...member.subscription, ownedPartitions: owned, generationId: existed ? generation : -1 };
      if (assignor.subscriptionUserData) {
        // One plugin object stands for every member: give it this member's history before asking.
        assignor.onAssignment?.(existed ? previous[member.memberId] : { partitions: [] }, existed ? generation : -1);
        return {
          ...member,
          subscription: { ...subscription, userData: assignor.subscriptionUserData([...member.subscription.topics]) },
        };
      }
      return { ...member, subscription };
    });
  }

  /** Cooperative follow-up rebalances until nobody revokes anything, as Kafka's CooperativeStickyAssignorTest does. */
  function followUps(input: Group, first: Result, generation: number, where: string): Result | null {
    const cooperative = report.cooperative!;
    cooperative.rebalances++;
    let members = input.members;
    let result = first;
    for (let round = 0; ; round++) {
      const revoking = members.some((m) => {
        const assigned = new Set(
          (result[m.memberId]?.partitions ?? []).flatMap((e) => e.partitions.map((p) => `${e.topic}-${p}`)),
        );
        return (m.subscription.ownedPartitions ?? []).some((e) =>
          e.partitions.some((p) => !assigned.has(`${e.topic}-${p}`)),
        );
      });
      if (!revoking) break;
      if (round === MAX_FOLLOW_UPS) {
        violation(where, `still revoking partitions after ${MAX_FOLLOW_UPS} follow-up rebalances`);
        return null;
      }
      members = members.map((m) => ({
        ...m,
        subscription: {
          ...m.subscription,
          ownedPartitions: result[m.memberId]?.partitions ?? [],
          generationId: generation,
        },
      }));
      const next = call({ cluster: input.cluster, members }, `${where} (follow-up ${round + 1})`);
      if (next === null) return null;
      const validation = validateAssignment(input.cluster, members, next, { protocol: 'cooperative' });
      for (const message of validation.violations) violation(`${where} (follow-up ${round + 1})`, message);
      if (!validation.valid) return null;
      result = next;
      cooperative.followUps++;
      cooperative.maxFollowUps = Math.max(cooperative.maxFollowUps, round + 1);
    }
    const complete = validateAssignment(input.cluster, input.members, result, { protocol: 'eager' });
    for (const message of complete.violations) violation(`${where} (after follow-ups)`, message);
    return complete.valid ? result : null;
  }

  function measure(input: Group, result: Result, scenario: Scenario, beforeRestart: Result | null): void {
    report.balance.total++;
    if (isFullyBalanced(result)) report.balance.fully++;
    if (kafkaBalanceViolations(result).length === 0) report.balance.kafka++;
    if (strictBalanceViolations(input.cluster, input.members, result).length === 0) report.balance.strict++;
    const { moved, forced } = movement(input.cluster, input.members, result);
    report.stickiness.moved += moved;
    report.stickiness.forced += forced;
    if (sameTopics(input.members)) {
      report.stickiness.uniformMoved += moved;
      report.stickiness.uniformMinimal += minimalMovesWhenUniform(input.cluster, input.members);
    }
    if (beforeRestart && scenario.uniform) {
      // Static members keep their instance ids across restarts: did each keep its partitions?
      const byInstance = new Map<string, string>();
      for (const m of input.members) {
        const before = Object.entries(beforeRestart).find(([id]) => m.memberId.startsWith(`${id}-restarted-`));
        if (before && m.groupInstanceId) byInstance.set(m.groupInstanceId, canonical({ x: before[1] }));
      }
      for (const m of input.members) {
        if (!m.groupInstanceId || !byInstance.has(m.groupInstanceId)) continue;
        report.staticMembers.total++;
        if (byInstance.get(m.groupInstanceId) === canonical({ x: result[m.memberId] })) report.staticMembers.kept++;
      }
    }
  }
}
