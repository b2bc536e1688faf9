export * from './api/group-coordinator.api';
export * from './ports/topic-registry.port';
export * from './ports/server-assignor.port';
export * from './ports/coordinator-metrics.port';
export * from './config/coordinator-config';
export * from './topics/in-memory-topic-registry';
export * from './group-coordinator';
