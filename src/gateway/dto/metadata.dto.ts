import { IsArray, IsString, MaxLength } from 'class-validator';
import type { MetadataRequest } from '@cohort/protocol';
import { MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe, IsNullable } from '../contract/schema-decorators';

export class MetadataDto implements MetadataRequest {
  /** null asks for every topic; the field itself is required, as in Kafka's request. */
  @Describe('Topic names; null for every topic, [] for none.')
  @IsNullable()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(MAX_TOPIC_NAME_LENGTH, { each: true })
  topics: string[] | null;
}
