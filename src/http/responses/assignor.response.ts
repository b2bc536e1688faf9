import { ApiProperty } from '@nestjs/swagger';
import type { AssignorInfo } from '@cohort/protocol';

/** A row of `GET /v1/assignors`. */
export class AssignorResponse implements AssignorInfo {
  @ApiProperty({ example: 'cooperative-sticky' })
  name: string;

  @ApiProperty({
    enum: ['eager', 'cooperative'],
    isArray: true,
    example: ['eager', 'cooperative'],
    description: 'Empty for an assignor of consumer groups only.',
  })
  supportedProtocols: ('eager' | 'cooperative')[];

  @ApiProperty({ example: true, description: 'false: loaded from ASSIGNOR_PLUGINS.' })
  builtIn: boolean;

  @ApiProperty({
    enum: ['classic', 'consumer'],
    isArray: true,
    example: ['classic', 'consumer'],
    description:
      'classic: a protocol name of JoinGroup; consumer: a server assignor of consumer groups (serverAssignor).',
  })
  groupTypes: ('classic' | 'consumer')[];
}
