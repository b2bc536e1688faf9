import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { relevantMessages } from '../common/relevant-messages';
import { consumerGroupProblems } from './consumer-group-variables';
import { shareGroupProblems } from './share-group-variables';
import { EnvironmentVariables, SENTINELS_PATTERN } from './environment-variables';
import { replicationSettings } from './mode-defaults';

/** Thrown at start for a bad configuration; its message names every bad variable and its value. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigurationError';
  }
}

/** Checks beyond the variables' own rules, run once they pass (the security files, src/security/security-problems.ts). */
export type MoreProblems = (config: EnvironmentVariables) => string[];

/**
 * The `validate` function given to @nestjs/config. Reads only the variables README.md's configuration table names; an empty
 * value counts as unset, so `PORT=` falls back to the default instead of failing as "not an integer".
 * `more` is what the layers above configuration check at start (the app passes the security checks).
 */
export function validateEnvironment(
  env: Record<string, string | undefined>,
  more: MoreProblems = () => [],
): EnvironmentVariables {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const config = plainToInstance(EnvironmentVariables, present, {
    excludeExtraneousValues: true,
    exposeDefaultValues: true,
  });
  const problems = validateSync(config, { forbidUnknownValues: true }).map((error) => describe(error, env));
  problems.push(...crossFieldProblems(config));
  if (problems.length === 0) problems.push(...more(config));
  if (problems.length > 0) throw new ConfigurationError(problems);
  return config;
}

/** Variables whose value is a secret: a problem with one names its length, never the value. */
const SECRET_VARIABLES = new Set(['AUTH_JWT_SECRET']);

function describe(error: ValidationError, env: Record<string, string | undefined>): string {
  const messages = relevantMessages(error.constraints ?? {}).join('; ');
  const value = env[error.property] ?? '';
  // A URL's credentials (REDIS_URL's password) are not shown either.
  const shown = SECRET_VARIABLES.has(error.property)
    ? `<${value.length} characters, not shown>`
    : JSON.stringify(value.replace(/\/\/[^/@]*@/, '//***@'));
  return `${error.property}=${shown}: ${messages}`;
}

function crossFieldProblems(config: EnvironmentVariables): string[] {
  const problems: string[] = [...consumerGroupProblems(config), ...shareGroupProblems(config)];
  if (config.GROUP_MIN_SESSION_TIMEOUT_MS > config.GROUP_MAX_SESSION_TIMEOUT_MS) {
    problems.push(
      `GROUP_MIN_SESSION_TIMEOUT_MS=${config.GROUP_MIN_SESSION_TIMEOUT_MS} must not exceed GROUP_MAX_SESSION_TIMEOUT_MS=${config.GROUP_MAX_SESSION_TIMEOUT_MS}`,
    );
  }
  if (config.MAX_SOCKET_INPUT_BUFFER_BYTES > 0 && config.MAX_SOCKET_INPUT_BUFFER_BYTES < config.MAX_PAYLOAD_BYTES) {
    problems.push(
      `MAX_SOCKET_INPUT_BUFFER_BYTES=${config.MAX_SOCKET_INPUT_BUFFER_BYTES} must be at least MAX_PAYLOAD_BYTES=${config.MAX_PAYLOAD_BYTES} (or 0, off): one largest message must fit`,
    );
  }
  const { replicationFactor, minInsyncReplicas } = replicationSettings(config);
  if (minInsyncReplicas > replicationFactor) {
    problems.push(
      `MIN_INSYNC_REPLICAS=${minInsyncReplicas} must not exceed OFFSETS_TOPIC_REPLICATION_FACTOR=${replicationFactor}`,
    );
  }
  const sentinels = SENTINELS_PATTERN.test(config.REDIS_SENTINELS ?? '') ? config.REDIS_SENTINELS! : '';
  for (const entry of sentinels
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const port = Number(entry.slice(entry.lastIndexOf(':') + 1));
    if (!(port >= 1 && port <= 65_535))
      problems.push(`REDIS_SENTINELS="${config.REDIS_SENTINELS}": port of ${entry} must be 1-65535`);
  }
  if (config.CLUSTER_MODE === 'embedded' && replicationFactor !== 1) {
    problems.push(
      `OFFSETS_TOPIC_REPLICATION_FACTOR=${replicationFactor}: embedded mode runs one node, so it must be 1`,
    );
  }
  return problems;
}
