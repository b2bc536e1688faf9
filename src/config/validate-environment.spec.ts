import { CohortConfig } from './cohort-config';
import { ConfigurationError, validateEnvironment } from './validate-environment';

const configOf = (env: Record<string, string | undefined>) => new CohortConfig(validateEnvironment(env));

function problemsOf(env: Record<string, string>): string[] {
  try {
    validateEnvironment(env);
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('configuration (the configuration table of README.md)', () => {
  it('gives every default of the configuration table of README.md for an empty environment', () => {
    const config = configOf({});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      advertisedUrl: null,
      nodeId: 0,
      clusterMode: 'embedded',
      redisUrl: 'redis://127.0.0.1:6379',
      clusterId: 'cohort',
      offsetsTopicNumPartitions: 50,
      offsetsTopicReplicationFactor: 1,
      minInsyncReplicas: 1,
      uncleanLeaderElectionEnable: false,
      replicaLagTimeMaxMs: 10000,
      replicaFetchWaitMaxMs: 500,
      nodeSessionTimeoutMs: 6000,
      logFlushPolicy: 'always',
      logRecoveryTruncateOnCorruption: false,
      groupMinSessionTimeoutMs: 6000,
      groupMaxSessionTimeoutMs: 1800000,
      groupInitialRebalanceDelayMs: 3000,
      groupMaxSize: 10_000,
      offsetMetadataMaxBytes: 4096,
      offsetsRetentionMinutes: 10080,
      offsetsRetentionCheckIntervalMs: 600000,
      offsetsCommitTimeoutMs: 5000,
      memberDisconnectGraceMs: 3000,
      assignorPlugins: [],
      maxPayloadBytes: 1048576,
    });
    expect(config.dataDir).toMatch(/\/data$/);
  });

  it('takes the cluster defaults in redis mode: RF 3, min ISR 2, flush replicated', () => {
    expect(configOf({ CLUSTER_MODE: 'redis' })).toMatchObject({
      offsetsTopicReplicationFactor: 3,
      minInsyncReplicas: 2,
      logFlushPolicy: 'replicated',
    });
  });

  it('parses integers, booleans and lists, and treats an empty value as unset', () => {
    const config = configOf({
      PORT: '0',
      UNCLEAN_LEADER_ELECTION_ENABLE: 'false',
      ASSIGNOR_PLUGINS: ' ./a.js , pkg-b ,',
      GROUP_MAX_SIZE: '',
      ADVERTISED_URL: 'http://node-1:3000/',
    });
    expect(config).toMatchObject({
      port: 0,
      uncleanLeaderElectionEnable: false,
      assignorPlugins: ['./a.js', 'pkg-b'],
      groupMaxSize: 10_000,
      advertisedUrl: 'http://node-1:3000',
    });
    expect(configOf({ UNCLEAN_LEADER_ELECTION_ENABLE: 'TRUE' }).uncleanLeaderElectionEnable).toBe(true);
  });

  it('reads REDIS_SENTINELS as host:port pairs and REDIS_SENTINEL_NAME (default mymaster), and refuses malformed ones', () => {
    expect(configOf({ CLUSTER_MODE: 'redis' })).toMatchObject({ redisSentinels: [], redisSentinelName: 'mymaster' });
    expect(
      configOf({ REDIS_SENTINELS: ' 10.0.0.1:26379, sentinel-b:26380 ', REDIS_SENTINEL_NAME: 'cohort-master' }),
    ).toMatchObject({
      redisSentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 'sentinel-b', port: 26380 },
      ],
      redisSentinelName: 'cohort-master',
    });
    expect(problemsOf({ REDIS_SENTINELS: 'sentinel-a' })).toEqual([
      'REDIS_SENTINELS="sentinel-a": REDIS_SENTINELS must be host:port[,host:port...]',
    ]);
    expect(problemsOf({ REDIS_SENTINELS: 'a:26379,,b:1' })).toEqual([
      'REDIS_SENTINELS="a:26379,,b:1": REDIS_SENTINELS must be host:port[,host:port...]',
    ]);
    expect(problemsOf({ REDIS_SENTINELS: 'a:70000' })).toEqual([
      'REDIS_SENTINELS="a:70000": port of a:70000 must be 1-65535',
    ]);
    expect(problemsOf({ REDIS_SENTINEL_NAME: 'my master' })).toEqual([
      'REDIS_SENTINEL_NAME="my master": REDIS_SENTINEL_NAME must be letters, digits, ".", "_" or "-"',
    ]);
  });

  it('names each bad variable and its value', () => {
    const problems = problemsOf({
      PORT: 'abc',
      CLUSTER_MODE: 'cloud',
      UNCLEAN_LEADER_ELECTION_ENABLE: 'yes',
      OFFSETS_TOPIC_NUM_PARTITIONS: '0',
      REDIS_URL: 'http://x',
      LOG_FLUSH_POLICY: 'sometimes',
      MAX_PAYLOAD_BYTES: '1.5',
      LOG_RECOVERY_TRUNCATE_ON_CORRUPTION: 'maybe',
    });
    expect(problems).toEqual([
      'PORT="abc": PORT must be an integer number',
      'CLUSTER_MODE="cloud": CLUSTER_MODE must be one of the following values: embedded, redis',
      expect.stringMatching(/^REDIS_URL="http:\/\/x": REDIS_URL must be a URL/),
      'OFFSETS_TOPIC_NUM_PARTITIONS="0": OFFSETS_TOPIC_NUM_PARTITIONS must not be less than 1',
      'UNCLEAN_LEADER_ELECTION_ENABLE="yes": UNCLEAN_LEADER_ELECTION_ENABLE must be a boolean value',
      'LOG_FLUSH_POLICY="sometimes": LOG_FLUSH_POLICY must be one of the following values: always, replicated',
      'LOG_RECOVERY_TRUNCATE_ON_CORRUPTION="maybe": LOG_RECOVERY_TRUNCATE_ON_CORRUPTION must be a boolean value',
      'MAX_PAYLOAD_BYTES="1.5": MAX_PAYLOAD_BYTES must be an integer number',
    ]);
  });

  it('checks variables against each other and against the mode', () => {
    expect(problemsOf({ GROUP_MIN_SESSION_TIMEOUT_MS: '10000', GROUP_MAX_SESSION_TIMEOUT_MS: '5000' })).toEqual([
      'GROUP_MIN_SESSION_TIMEOUT_MS=10000 must not exceed GROUP_MAX_SESSION_TIMEOUT_MS=5000',
    ]);
    expect(problemsOf({ CLUSTER_MODE: 'redis', MIN_INSYNC_REPLICAS: '4' })).toEqual([
      'MIN_INSYNC_REPLICAS=4 must not exceed OFFSETS_TOPIC_REPLICATION_FACTOR=3',
    ]);
    expect(problemsOf({ OFFSETS_TOPIC_REPLICATION_FACTOR: '3' })).toEqual([
      'OFFSETS_TOPIC_REPLICATION_FACTOR=3: embedded mode runs one node, so it must be 1',
    ]);
    expect(problemsOf({ MAX_SOCKET_INPUT_BUFFER_BYTES: '1000', MAX_PAYLOAD_BYTES: '2000' })).toEqual([
      'MAX_SOCKET_INPUT_BUFFER_BYTES=1000 must be at least MAX_PAYLOAD_BYTES=2000 (or 0, off): one largest message must fit',
    ]);
    expect(() => validateEnvironment({ MAX_SOCKET_INPUT_BUFFER_BYTES: '0', MAX_PAYLOAD_BYTES: '2000' })).not.toThrow();
  });

  it('gives the consumer group defaults (5 s heartbeat, 45 s session, unlimited size, uniform then range) and reads set values', () => {
    expect(configOf({})).toMatchObject({
      groupConsumerHeartbeatIntervalMs: 5000,
      groupConsumerSessionTimeoutMs: 45_000,
      groupConsumerMaxSize: Number.POSITIVE_INFINITY,
      groupConsumerAssignors: ['uniform', 'range'],
    });
    expect(
      configOf({
        GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '2500',
        GROUP_CONSUMER_SESSION_TIMEOUT_MS: '30000',
        GROUP_CONSUMER_MAX_SIZE: '12',
        GROUP_CONSUMER_ASSIGNORS: ' range , uniform ',
      }),
    ).toMatchObject({
      groupConsumerHeartbeatIntervalMs: 2500,
      groupConsumerSessionTimeoutMs: 30_000,
      groupConsumerMaxSize: 12,
      groupConsumerAssignors: ['range', 'uniform'],
    });
  });

  it('refuses a consumer group heartbeat interval or session timeout outside its min and max, or an interval not below the timeout, in one line each', () => {
    expect(problemsOf({ GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '500' })).toEqual([
      'GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS=500 must be between GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS=1000 and GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS=15000',
    ]);
    expect(problemsOf({ GROUP_CONSUMER_SESSION_TIMEOUT_MS: '90000' })).toEqual([
      'GROUP_CONSUMER_SESSION_TIMEOUT_MS=90000 must be between GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS=6000 and GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS=60000',
    ]);
    expect(
      problemsOf({ GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS: '70000', GROUP_CONSUMER_SESSION_TIMEOUT_MS: '70000' }),
    ).toEqual([
      'GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS=70000 must not exceed GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS=60000',
    ]);
    expect(
      problemsOf({ GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '10000', GROUP_CONSUMER_SESSION_TIMEOUT_MS: '8000' }),
    ).toEqual(['GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS=10000 must be less than GROUP_CONSUMER_SESSION_TIMEOUT_MS=8000']);
  });

  it('refuses a malformed consumer group size or assignor list, naming the variable', () => {
    expect(problemsOf({ GROUP_CONSUMER_MAX_SIZE: '0' })).toEqual([
      'GROUP_CONSUMER_MAX_SIZE="0": GROUP_CONSUMER_MAX_SIZE must not be less than 1',
    ]);
    expect(problemsOf({ GROUP_CONSUMER_ASSIGNORS: 'uniform,,range' })).toEqual([
      'GROUP_CONSUMER_ASSIGNORS="uniform,,range": GROUP_CONSUMER_ASSIGNORS must be a comma-separated list of assignor names',
    ]);
    expect(problemsOf({ GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: 'fast' })).toEqual([
      'GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS="fast": GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS must be an integer number',
    ]);
  });

  it('gives the share group defaults (5 s heartbeat, 45 s session, 200 members, 30 s locks, 5 deliveries, 2000 locks, latest) and reads set values', () => {
    expect(configOf({})).toMatchObject({
      groupShareHeartbeatIntervalMs: 5000,
      groupShareSessionTimeoutMs: 45_000,
      groupShareMaxSize: 200,
      groupShareRecordLockDurationMs: 30_000,
      groupShareDeliveryCountLimit: 5,
      groupSharePartitionMaxRecordLocks: 2000,
      groupShareAutoOffsetReset: 'latest',
    });
    expect(
      configOf({
        GROUP_SHARE_HEARTBEAT_INTERVAL_MS: '2000',
        GROUP_SHARE_SESSION_TIMEOUT_MS: '20000',
        GROUP_SHARE_MAX_SIZE: '3',
        GROUP_SHARE_RECORD_LOCK_DURATION_MS: '5000',
        GROUP_SHARE_DELIVERY_COUNT_LIMIT: '2',
        GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS: '100',
        GROUP_SHARE_AUTO_OFFSET_RESET: ' earliest ',
      }),
    ).toMatchObject({
      groupShareHeartbeatIntervalMs: 2000,
      groupShareSessionTimeoutMs: 20_000,
      groupShareMaxSize: 3,
      groupShareRecordLockDurationMs: 5000,
      groupShareDeliveryCountLimit: 2,
      groupSharePartitionMaxRecordLocks: 100,
      groupShareAutoOffsetReset: 'earliest',
    });
  });

  it('refuses share group values outside their bounds, a lock duration outside its min and max, or an interval not below the timeout, in one line each', () => {
    expect(problemsOf({ GROUP_SHARE_HEARTBEAT_INTERVAL_MS: '500' })).toEqual([
      'GROUP_SHARE_HEARTBEAT_INTERVAL_MS=500 must be between GROUP_SHARE_MIN_HEARTBEAT_INTERVAL_MS=1000 and GROUP_SHARE_MAX_HEARTBEAT_INTERVAL_MS=15000',
    ]);
    expect(problemsOf({ GROUP_SHARE_SESSION_TIMEOUT_MS: '90000' })).toEqual([
      'GROUP_SHARE_SESSION_TIMEOUT_MS=90000 must be between GROUP_SHARE_MIN_SESSION_TIMEOUT_MS=6000 and GROUP_SHARE_MAX_SESSION_TIMEOUT_MS=60000',
    ]);
    expect(
      problemsOf({ GROUP_SHARE_RECORD_LOCK_DURATION_MS: '5000', GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS: '10000' }),
    ).toEqual([
      'GROUP_SHARE_RECORD_LOCK_DURATION_MS=5000 must be between GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS=10000 and GROUP_SHARE_MAX_RECORD_LOCK_DURATION_MS=3600000',
    ]);
    expect(problemsOf({ GROUP_SHARE_HEARTBEAT_INTERVAL_MS: '10000', GROUP_SHARE_SESSION_TIMEOUT_MS: '8000' })).toEqual([
      'GROUP_SHARE_HEARTBEAT_INTERVAL_MS=10000 must be less than GROUP_SHARE_SESSION_TIMEOUT_MS=8000',
    ]);
    expect(problemsOf({ GROUP_SHARE_DELIVERY_COUNT_LIMIT: '11' })).toEqual([
      'GROUP_SHARE_DELIVERY_COUNT_LIMIT="11": GROUP_SHARE_DELIVERY_COUNT_LIMIT must not be greater than 10',
    ]);
    expect(problemsOf({ GROUP_SHARE_MAX_SIZE: '0' })).toEqual([
      'GROUP_SHARE_MAX_SIZE="0": GROUP_SHARE_MAX_SIZE must not be less than 1',
    ]);
    expect(problemsOf({ GROUP_SHARE_AUTO_OFFSET_RESET: 'none' })).toEqual([
      'GROUP_SHARE_AUTO_OFFSET_RESET="none": GROUP_SHARE_AUTO_OFFSET_RESET must be one of the following values: latest, earliest',
    ]);
  });

  it('migrates groups online both ways by default, reads GROUP_CONSUMER_MIGRATION_POLICY case-insensitively and refuses an unknown policy', () => {
    expect(configOf({}).groupConsumerMigrationPolicy).toBe('bidirectional');
    expect(configOf({ GROUP_CONSUMER_MIGRATION_POLICY: ' Upgrade ' }).groupConsumerMigrationPolicy).toBe('upgrade');
    expect(configOf({ GROUP_CONSUMER_MIGRATION_POLICY: 'disabled' }).groupConsumerMigrationPolicy).toBe('disabled');
    expect(problemsOf({ GROUP_CONSUMER_MIGRATION_POLICY: 'sideways' })).toEqual([
      'GROUP_CONSUMER_MIGRATION_POLICY="sideways": GROUP_CONSUMER_MIGRATION_POLICY must be bidirectional, upgrade, downgrade or disabled',
    ]);
  });

  it('serves the classic, consumer and share protocols by default, and refuses a list without classic or with an unknown name', () => {
    expect(configOf({}).groupCoordinatorRebalanceProtocols).toEqual(['classic', 'consumer', 'share']);
    expect(configOf({ GROUP_COORDINATOR_REBALANCE_PROTOCOLS: ' Classic ' }).groupCoordinatorRebalanceProtocols).toEqual(
      ['classic'],
    );
    expect(problemsOf({ GROUP_COORDINATOR_REBALANCE_PROTOCOLS: 'consumer' })).toEqual([
      'GROUP_COORDINATOR_REBALANCE_PROTOCOLS="consumer" must include classic (the classic protocol cannot be turned off, as in Kafka)',
    ]);
    expect(problemsOf({ GROUP_COORDINATOR_REBALANCE_PROTOCOLS: 'classic,streams' })).toEqual([
      'GROUP_COORDINATOR_REBALANCE_PROTOCOLS="classic,streams": GROUP_COORDINATOR_REBALANCE_PROTOCOLS must be a comma-separated list of classic, consumer and share',
    ]);
  });

  it('ignores variables the configuration table of README.md does not name', () => {
    expect(() => validateEnvironment({ PATH: '/usr/bin', HOME: '/root', npm_config_foo: 'x' })).not.toThrow();
  });
});
