import { ConfigurationError } from '../config/validate-environment';
import { StorageStartError } from '../node/storage/storage-start-error';

/** A listen error as Node reports it (`listen EADDRINUSE: address already in use 0.0.0.0:3000`). */
interface ListenError {
  code?: string;
  syscall?: string;
  port?: number;
  address?: string;
}

/**
 * What `npm start` prints when the node cannot start: the operator's mistakes (a bad variable, a port
 * already taken or not allowed, DATA_DIR held by another node, full or unwritable) as what to change,
 * without a stack; anything else with its stack.
 */
export function describeStartupFailure(error: unknown, env: Record<string, string | undefined>): string {
  if (error instanceof ConfigurationError || error instanceof StorageStartError) return error.message;
  const listen = error as ListenError | null;
  if (listen?.syscall === 'listen' && (listen.code === 'EADDRINUSE' || listen.code === 'EACCES')) {
    const variable = variableOfPort(listen.port, env);
    const where = `port ${listen.port ?? '?'}${listen.address ? ` on ${listen.address}` : ''}`;
    return listen.code === 'EADDRINUSE'
      ? `${where} is already in use (${variable}=${listen.port ?? '?'}): stop the process that listens there, or set ${variable} to a free port`
      : `no permission to listen on ${where} (${variable}=${listen.port ?? '?'}): ports below 1024 need privileges; set ${variable} to a port above 1023`;
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Which variable chose the port: PORT, or in cluster mode REPLICATION_PORT (PORT + 1000 by default). */
function variableOfPort(port: number | undefined, env: Record<string, string | undefined>): string {
  const httpPort = Number(env.PORT ?? 3000);
  const replicationPort = env.REPLICATION_PORT !== undefined ? Number(env.REPLICATION_PORT) : httpPort + 1000;
  return port !== undefined && port === replicationPort && port !== httpPort ? 'REPLICATION_PORT' : 'PORT';
}
