import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../../src/app.module';
import { configureCohortApp, createCohortApp } from '../../src/create-cohort-app';
import { COHORT_NODE, type CohortNode } from '../../src/node/cohort-node';

/** Settings that make tests fast and quiet; each test passes its own on top. */
export const TEST_ENV: Record<string, string> = {
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'error',
  GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
  GROUP_MIN_SESSION_TIMEOUT_MS: '100',
};

export interface RunningApp {
  app: INestApplication;
  url: string;
  close(): Promise<void>;
}

async function listen(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  return url.replace('[::1]', '127.0.0.1');
}

/** The real app (real node) on a free loopback port. */
export async function startApp(env: Record<string, string>): Promise<RunningApp> {
  const app = await createCohortApp({ ...TEST_ENV, ...env });
  const url = await listen(app);
  return { app, url, close: () => app.close() };
}

/** The app with its node replaced (transport tests without a log). */
export async function startAppWithNode(node: CohortNode, env: Record<string, string> = {}): Promise<RunningApp> {
  const moduleRef = await Test.createTestingModule({ imports: [await AppModule.forRoot({ ...TEST_ENV, ...env })] })
    .overrideProvider(COHORT_NODE)
    .useValue(node)
    .compile();
  const app = configureCohortApp(moduleRef.createNestApplication({ bufferLogs: true, forceCloseConnections: true }));
  const url = await listen(app);
  return { app, url, close: () => app.close() };
}

/** A fresh DATA_DIR; remove it with the returned function. */
export function tempDataDir(prefix = 'cohort-test-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
