import type { TopicAccessPort } from '@cohort/coordinator';
import type { AuthorizationService } from './authorization.service';

/**
 * DESCRIBE TOPIC as the node's ACLs answer it, for the coordinator's regex subscriptions (each member
 * is given only the matched topics its principal may describe); none when ACLs are off.
 */
export function topicAccessOf(authorization: AuthorizationService): TopicAccessPort | undefined {
  if (!authorization.enabled) return undefined;
  return {
    canDescribeTopic: (principal, host, topic) => authorization.allows({ principal, host }, 'DESCRIBE', 'TOPIC', topic),
    version: () => authorization.aclVersion,
    onChanged: (listener) => authorization.onAclsChanged(listener),
  };
}
