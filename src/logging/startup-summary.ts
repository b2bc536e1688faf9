import type { INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { CohortConfig } from '../config/cohort-config';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { NodeAddress } from '../node/node-address';
import { ROOT_LOGGER } from './root-logger.module';

/** How long to wait for the partitions to load before saying so anyway (a cluster may still be forming). */
const READY_WAIT_MS = 60_000;
const POLL_MS = 20;

export interface StartupSummary {
  url: string;
  mode: 'embedded' | 'redis';
  nodeId: number;
  dataDir: string;
  dashboard: string;
  ready: boolean;
  /** From the start of the process's work (`startedAt`) until every partition this node leads was loaded. */
  startupMs: number;
  loadingPartitions: number;
  groups: number | null;
}

/**
 * The one info line a person starting a node wants: where it listens, in which mode, where its data
 * is, the dashboard's address and how long start-up and loading took. Logged once the node is ready
 * (or, if it is not within a minute, saying how many partitions are still loading; at once, saying why,
 * when waiting cannot make it ready).
 */
export async function logStartupSummary(app: INestApplication, startedAt: number): Promise<StartupSummary> {
  const node = app.get<CohortNode>(COHORT_NODE);
  const config = app.get(CohortConfig);
  const url = app.get(NodeAddress).url();
  const deadline = startedAt + READY_WAIT_MS;
  // A node that cannot become ready by waiting (a damaged log) says so at once, not a minute later.
  const waiting = () => !node.isReady() && node.mayBecomeReady?.() !== false && performance.now() < deadline;
  while (waiting()) await new Promise((done) => setTimeout(done, POLL_MS));
  const ready = node.isReady();
  const groups = await node.coordinator.listGroupSummaries().then(
    (all) => all.length,
    () => null,
  );
  const summary: StartupSummary = {
    url,
    mode: node.mode,
    nodeId: config.nodeId,
    dataDir: config.dataDir,
    dashboard: `${url}/ui`,
    ready,
    startupMs: Math.round(performance.now() - startedAt),
    loadingPartitions: node.coordinator.loadingPartitions?.().length ?? 0,
    groups,
  };
  const mode = summary.mode === 'embedded' ? 'embedded mode' : `cluster mode, node ${summary.nodeId}`;
  const why =
    node.mayBecomeReady?.() === false
      ? node.notReadyReason?.()
      : `${summary.loadingPartitions} partitions still loading`;
  const state = ready
    ? `ready in ${summary.startupMs} ms${groups === null ? '' : ` (${groups} groups loaded)`}`
    : `not ready after ${summary.startupMs} ms: ${why}`;
  const logger = app.get<Logger>(ROOT_LOGGER).child({ context: 'Cohort' });
  logger.info(
    { summary },
    `Cohort listening on ${url} (${mode}, data in ${summary.dataDir}); dashboard ${summary.dashboard}; ${state}`,
  );
  return summary;
}
