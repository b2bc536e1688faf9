import { ApiProperty } from '@nestjs/swagger';
import type { AssignDryRunResult } from '@cohort/protocol';

/** `POST /v1/assignors/:name/assign`. */
export class AssignDryRunResponse implements AssignDryRunResult {
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'array',
      items: {
        type: 'object',
        properties: { topic: { type: 'string' }, partitions: { type: 'array', items: { type: 'integer' } } },
      },
    },
    example: { a: [{ topic: 'orders', partitions: [0, 1, 2] }], b: [{ topic: 'orders', partitions: [3, 4, 5] }] },
    description: 'memberId → [{ topic, partitions }]',
  })
  assignments: Record<string, { topic: string; partitions: number[] }[]>;

  @ApiProperty({
    type: [String],
    example: [],
    description: 'Subscribed topics missing from partitionsPerTopic: nobody gets anything of them.',
  })
  unknownTopics: string[];
}
