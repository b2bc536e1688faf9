/**
 * Kafka's ACL model (KIP-11, prefixes KIP-290) as Cohort's REST `/v1/acls` carries it, shared by the
 * server, the SDK's admin client and the CLI. See docs/security.md.
 */
export const RESOURCE_TYPES = ['GROUP', 'TOPIC', 'CLUSTER'] as const;
export type AclResourceType = (typeof RESOURCE_TYPES)[number];

export const PATTERN_TYPES = ['LITERAL', 'PREFIXED'] as const;
export type AclPatternType = (typeof PATTERN_TYPES)[number];

/** Kafka's `AclOperation`s that mean something on Cohort's resources (`ALL` covers every one). */
export const ACL_OPERATIONS = [
  'ALL',
  'READ',
  'WRITE',
  'CREATE',
  'DELETE',
  'ALTER',
  'DESCRIBE',
  'CLUSTER_ACTION',
] as const;
export type AclOperation = (typeof ACL_OPERATIONS)[number];

export const ACL_PERMISSIONS = ['ALLOW', 'DENY'] as const;
export type AclPermission = (typeof ACL_PERMISSIONS)[number];

/** The only resource name of type CLUSTER, as in Kafka (`Resource.CLUSTER_NAME`). */
export const CLUSTER_RESOURCE_NAME = 'kafka-cluster';

/** The resource name (LITERAL) that matches every resource of its type, and the principal that matches everyone. */
export const WILDCARD_RESOURCE = '*';
export const WILDCARD_PRINCIPAL = 'User:*';

/**
 * "Principal P is Allowed/Denied Operation O From Host H on any Resource R matching ResourcePattern RP."
 * `host` is `*` (any client address) or one exact IP string.
 */
export interface AclBinding {
  principal: string;
  host: string;
  resourceType: AclResourceType;
  resourceName: string;
  patternType: AclPatternType;
  operation: AclOperation;
  permission: AclPermission;
}

/** A filter for listing or deleting: every field given must equal the binding's; a missing field matches any. */
export type AclBindingFilter = Partial<AclBinding>;

/** `POST /v1/acls` body. */
export interface CreateAclsRequest {
  acls: AclBinding[];
}

/** `POST /v1/acls` answer (201): the bindings as stored. */
export interface CreateAclsResponse {
  created: AclBinding[];
}

/** `DELETE /v1/acls` body and answer. */
export interface DeleteAclsRequest {
  filters: AclBindingFilter[];
}

export interface DeleteAclsResponse {
  deleted: AclBinding[];
}
