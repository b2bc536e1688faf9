import request from 'supertest';
import type { MemberOptions } from './group-member';
import { MemberPool } from './member-pool';
import { type RunningApp, startApp, tempDataDir } from './test-app';

export interface AppPerFile {
  readonly url: string;
  readonly running: RunningApp;
  readonly dataDir: string;
  http(): ReturnType<typeof request>;
  /** A pool of members whose sockets are closed after each test. */
  members(defaults: MemberOptions): MemberPool;
}

/**
 * One real app for a whole test file, on its own DATA_DIR, with `topics` created: registers the
 * beforeAll/afterAll hooks that start and stop it, and returns accessors for the tests.
 */
export function appPerFile(
  options: { env?: Record<string, string>; topics?: Record<string, number> } = {},
): AppPerFile {
  const data = tempDataDir();
  let running: RunningApp | null = null;
  const current = (): RunningApp => {
    if (!running) throw new Error('the app is not running (used outside a test?)');
    return running;
  };
  beforeAll(async () => {
    running = await startApp({ DATA_DIR: data.dir, ...options.env });
    for (const [name, partitions] of Object.entries(options.topics ?? {})) {
      await request(running.url).post('/v1/topics').send({ name, partitions }).expect(201);
    }
  });
  afterAll(async () => {
    await running?.close();
    data.remove();
  });
  return {
    get url() {
      return current().url;
    },
    get running() {
      return current();
    },
    dataDir: data.dir,
    http: () => request(current().url),
    members(defaults) {
      const pool = new MemberPool(() => current().url, defaults);
      afterEach(() => pool.closeAll());
      return pool;
    },
  };
}
