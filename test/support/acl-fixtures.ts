import type { AclBinding } from '@cohort/protocol';

/** A binding with the defaults most tests want: ALLOW, any host, a LITERAL name. */
export function allow(
  principal: string,
  operation: AclBinding['operation'],
  resourceType: AclBinding['resourceType'],
  resourceName: string,
  patternType: AclBinding['patternType'] = 'LITERAL',
): AclBinding {
  return { principal, host: '*', resourceType, resourceName, patternType, operation, permission: 'ALLOW' };
}

export function deny(
  principal: string,
  operation: AclBinding['operation'],
  resourceType: AclBinding['resourceType'],
  resourceName: string,
  patternType: AclBinding['patternType'] = 'LITERAL',
): AclBinding {
  return { ...allow(principal, operation, resourceType, resourceName, patternType), permission: 'DENY' };
}
