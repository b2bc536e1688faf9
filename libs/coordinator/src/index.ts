export * from './api/group-coordinator.api';
export * from './ports/topic-registry.port';
