// Public surface of @cohort/client. Everything an application imports comes from here.
export { CohortError } from './errors/cohort-error';
export type { WireErrorFields, RestErrorBody } from './errors/cohort-error';
export type { TopicPartitions, Subscription, MemberAssignment } from '@cohort/protocol';
