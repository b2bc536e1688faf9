import { IsArray, IsString, MaxLength, ValidateIf } from 'class-validator';
import type { MetadataRequest } from '@cohort/protocol';
import { MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';

export class MetadataDto implements MetadataRequest {
  /** null asks for every topic; the field itself is required, as in Kafka's request. */
  @ValidateIf((dto: MetadataDto) => dto.topics !== null)
  @IsArray()
  @IsString({ each: true })
  @MaxLength(MAX_TOPIC_NAME_LENGTH, { each: true })
  topics: string[] | null;
}
