import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { MAX_TOPIC_PARTITIONS } from './rest-limits';

export class GrowTopicDto {
  @ApiProperty({ example: 24, description: 'New partition count; it can only grow, as in Kafka.' })
  @IsInt()
  @Min(1)
  @Max(MAX_TOPIC_PARTITIONS)
  partitions: number;
}
