import { IsInt, IsOptional, IsString, ValidateIf } from 'class-validator';
import { dtoSchemas } from './dto-schemas';
import { IsNullable } from './schema-decorators';
import { socketRequestSchemas } from './socket-contracts';

class NullableTopicsDto {
  @IsNullable()
  @IsString({ each: true })
  topics: string[] | null;

  @IsOptional()
  @IsInt()
  epoch?: number;
}

class ConditionalDto {
  @ValidateIf((dto: ConditionalDto) => dto.kind === 'a')
  @IsString()
  kind: string;
}

describe('JSON Schemas derived from the DTOs', () => {
  it('makes an @IsOptional field optional and nullable, and an @IsNullable one required and nullable', () => {
    expect(dtoSchemas({ Probe: NullableTopicsDto }).Probe).toEqual({
      type: 'object',
      properties: {
        topics: { type: ['array', 'null'], items: { type: 'string' } },
        epoch: { type: ['integer', 'null'] },
      },
      required: ['topics'],
    });
  });

  it('refuses a @ValidateIf whose condition no schema can say', () => {
    expect(() => dtoSchemas({ Probe: ConditionalDto })).toThrow(/ConditionalDto.kind/);
  });

  it("gives a Heartbeat the DTO's bounds, its inherited fields and a generation of -1 or more", () => {
    expect(socketRequestSchemas().HeartbeatRequest).toMatchObject({
      required: ['groupId', 'generationId', 'memberId'],
      properties: {
        groupId: { type: 'string', maxLength: 1024 },
        generationId: { type: 'integer', minimum: -1, maximum: 2_147_483_647 },
        groupInstanceId: { type: ['string', 'null'], minLength: 1, maxLength: 249 },
      },
    });
  });

  it('names nested shapes after their DTO and points to them', () => {
    const schemas = socketRequestSchemas();
    expect(schemas.OffsetCommitRequest.properties).toMatchObject({
      topics: { type: 'array', items: { $ref: '#/components/schemas/OffsetCommitTopic' } },
    });
    expect(schemas.OffsetCommitTopic.properties).toMatchObject({
      partitions: { items: { $ref: '#/components/schemas/OffsetCommitPartition' } },
    });
  });
});
