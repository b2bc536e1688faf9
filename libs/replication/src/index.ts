export * from './time/clock';
export * from './time/real-clock';
export * from './time/manual-clock';
export * from './time/random';
export * from './api/log-record';
export * from './api/partition-store.port';
