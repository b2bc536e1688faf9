import type { HeartbeatRequest } from '@cohort/protocol';
import { GroupMemberRequestDto } from './group-member-request.dto';

export class HeartbeatDto extends GroupMemberRequestDto implements HeartbeatRequest {}
