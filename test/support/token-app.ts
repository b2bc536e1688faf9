import type { Socket } from 'socket.io-client';
import request from 'supertest';
import { writeTokensFile } from './auth-fixtures';
import { connect } from './socket-client';
import { startApp, type RunningApp, tempDataDir } from './test-app';

/**
 * One embedded node with bearer tokens on, for e2e specs that act as several principals over REST and
 * sockets: `User:<name>` holds `tokens[name]`, `User:admin` is the super user unless the spec names
 * others. The data directory outlives `restart()`, so a spec can check what survives the node.
 */
export interface TokenApp<Name extends string> {
  /** The node's environment (DATA_DIR, AUTH_TOKENS_FILE, SUPER_USERS and the spec's own settings). */
  readonly env: Record<string, string>;
  /** The running node; set by start(). */
  readonly running: RunningApp;
  readonly url: string;
  start(): Promise<RunningApp>;
  /** Closes the node and starts it again on the same data directory. */
  restart(): Promise<RunningApp>;
  /** Closes every socket opened through socketOf, the node, and removes its directories. */
  stop(): Promise<void>;
  /** The Authorization header of `principal`. */
  as(principal: Name): { Authorization: string };
  /** A socket authenticated as `principal`, closed by closeSockets() or stop(). */
  socketOf(principal: Name): Promise<Socket>;
  closeSockets(): void;
  /** Creates topics as the super user. */
  createTopics(topics: ReadonlyArray<readonly [name: string, partitions: number]>): Promise<void>;
  /** Grants ACL bindings (see acl-fixtures' allow/deny) as the super user. */
  grant(acls: unknown[]): Promise<void>;
}

export function tokenApp<Name extends string>(
  prefix: string,
  tokens: Record<Name, string>,
  options: { env?: Record<string, string>; superUser?: Name } = {},
): TokenApp<Name> {
  const dir = tempDataDir(prefix);
  const data = tempDataDir(`${prefix}data-`);
  const superUser = options.superUser ?? ('admin' as Name);
  const env = {
    DATA_DIR: data.dir,
    AUTH_TOKENS_FILE: writeTokensFile(
      dir.dir,
      Object.fromEntries(Object.entries<string>(tokens).map(([name, token]) => [`User:${name}`, token])),
    ),
    SUPER_USERS: `User:${superUser}`,
    ...options.env,
  };
  let running: RunningApp | undefined;
  const sockets: Socket[] = [];
  const live = (): RunningApp => {
    if (!running) throw new Error('the app is not started: call start() in beforeAll');
    return running;
  };
  const as = (principal: Name) => ({ Authorization: `Bearer ${tokens[principal]}` });
  const closeSockets = () => {
    for (const socket of sockets.splice(0)) socket.disconnect();
  };
  return {
    env,
    get running() {
      return live();
    },
    get url() {
      return live().url;
    },
    start: async () => (running = await startApp(env)),
    restart: async () => {
      await running?.close();
      running = await startApp(env);
      return running;
    },
    stop: async () => {
      closeSockets();
      await running?.close();
      dir.remove();
      data.remove();
    },
    as,
    socketOf: async (principal) => {
      const socket = await connect(live().url, { token: tokens[principal] });
      sockets.push(socket);
      return socket;
    },
    closeSockets,
    createTopics: async (topics) => {
      for (const [name, partitions] of topics)
        await request(live().url).post('/v1/topics').set(as(superUser)).send({ name, partitions }).expect(201);
    },
    grant: async (acls) => {
      await request(live().url).post('/v1/acls').set(as(superUser)).send({ acls }).expect(201);
    },
  };
}
