import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { MAX_TOPIC_PARTITIONS } from './rest-limits';

export class CreateTopicDto {
  @ApiProperty({ example: 'orders', description: "Kafka's topic name rules: 1-249 of [a-zA-Z0-9._-]" })
  @IsString()
  name: string;

  @ApiProperty({ example: 12, minimum: 1, maximum: MAX_TOPIC_PARTITIONS })
  @IsInt()
  @Min(1)
  @Max(MAX_TOPIC_PARTITIONS)
  partitions: number;
}
