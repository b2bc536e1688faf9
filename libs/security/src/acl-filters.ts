import type { AclBinding, AclBindingFilter } from '@cohort/protocol';
import { canonicalHost } from './host-address';

/**
 * Filters as the REST list and delete use them: every field the filter gives must equal the
 * binding's (exact match, as Kafka's AclBindingFilter with concrete values); a field it leaves out
 * matches anything, so `{}` matches every binding. Hosts are compared as addresses (canonicalHost).
 */
export function matchesFilter(binding: AclBinding, filter: AclBindingFilter): boolean {
  return (
    (filter.principal === undefined || filter.principal === binding.principal) &&
    (filter.host === undefined || canonicalHost(filter.host) === canonicalHost(binding.host)) &&
    (filter.resourceType === undefined || filter.resourceType === binding.resourceType) &&
    (filter.resourceName === undefined || filter.resourceName === binding.resourceName) &&
    (filter.patternType === undefined || filter.patternType === binding.patternType) &&
    (filter.operation === undefined || filter.operation === binding.operation) &&
    (filter.permission === undefined || filter.permission === binding.permission)
  );
}

/** One string per distinct binding: a binding created twice is stored once, as in Kafka. */
export function bindingKey(binding: AclBinding): string {
  return JSON.stringify([
    binding.principal,
    canonicalHost(binding.host),
    binding.resourceType,
    binding.resourceName,
    binding.patternType,
    binding.operation,
    binding.permission,
  ]);
}

/** A stable order for listings and the stored file: by resource, then principal, host, operation, permission. */
export function compareBindings(a: AclBinding, b: AclBinding): number {
  const x = sortKey(a);
  const y = sortKey(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function sortKey(b: AclBinding): string {
  return [b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permission].join('\u0000');
}
