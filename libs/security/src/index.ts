export * from './acl-filters';
export * from './acl-index';
export * from './acl-validation';
export * from './authorizer';
export * from './host-address';
export * from './operations';
export * from './request-acls';
