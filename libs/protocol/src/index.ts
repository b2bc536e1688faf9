export * from './error-codes';
export * from './consumer-protocol';
export * from './group-state';
export * from './placement';
export * from './requests';
export * from './responses';
export * from './events';
export * from './acl';
