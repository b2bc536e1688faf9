import { ApiProperty } from '@nestjs/swagger';
import type { OffsetsWriteResult } from '@cohort/protocol';

class PartitionErrorResponse {
  @ApiProperty({ example: 0 })
  partitionIndex: number;

  @ApiProperty({ example: 0, description: '0: written (a failed partition makes the whole answer an error instead).' })
  errorCode: number;
}

class TopicErrorsResponse {
  @ApiProperty({ example: 'orders' })
  name: string;

  @ApiProperty({ type: () => [PartitionErrorResponse] })
  partitions: PartitionErrorResponse[];
}

/** `POST` and `DELETE /v1/groups/:groupId/offsets`: per partition, as OffsetCommit and OffsetDelete answer. */
export class OffsetsWriteResponse implements OffsetsWriteResult {
  @ApiProperty({ type: () => [TopicErrorsResponse] })
  topics: TopicErrorsResponse[];
}
