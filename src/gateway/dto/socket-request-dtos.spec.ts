import type { ArgumentMetadata, Type } from '@nestjs/common';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { KafkaValidationPipe } from '../../common/kafka-validation.pipe';
import { JoinGroupDto } from './join-group.dto';
import { HeartbeatDto } from './heartbeat.dto';
import { OffsetCommitDto } from './offset-commit.dto';
import { OffsetFetchDto } from './offset-fetch.dto';
import { SyncGroupDto } from './sync-group.dto';
import { ResetOffsetsDto } from '../../http/dto/reset-offsets.dto';

/**
 * The coordinator relies on the transports for a request's shape; these are the shapes it used to
 * check itself, now refused by the socket DTOs with the same INVALID_REQUEST naming the field.
 */
const pipe = new KafkaValidationPipe();

async function refusal(dto: Type<unknown>, payload: unknown): Promise<KafkaError> {
  const metadata: ArgumentMetadata = { type: 'body', metatype: dto, data: undefined };
  const error = await pipe.transform(payload, metadata).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof KafkaError)) throw new Error(`${dto.name} accepted ${JSON.stringify(payload)}`);
  return error;
}

const commit = (partition: Record<string, unknown>, generationId = -1) => ({
  groupId: 'g',
  generationId,
  topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, ...partition }] }],
});

describe('socket request DTOs', () => {
  it.each([
    ['a negative offset', { committedOffset: -1 }, 'committedOffset'],
    ['an offset beyond what JSON numbers hold exactly', { committedOffset: 2 ** 53 }, 'committedOffset'],
    ['a fractional leader epoch', { committedOffset: 1, committedLeaderEpoch: 0.5 }, 'committedLeaderEpoch'],
    ['metadata that is not a string', { committedOffset: 1, committedMetadata: 7 }, 'committedMetadata'],
    ['a negative partition', { partitionIndex: -1, committedOffset: 1 }, 'partitionIndex'],
  ])('refuse an OffsetCommit with %s as INVALID_REQUEST naming the field', async (_what, partition, field) => {
    const error = await refusal(OffsetCommitDto, commit(partition));
    expect(error.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(error.message).toContain(field);
  });

  it('take generation -1 (none) and refuse any other negative generation, as the coordinator did', async () => {
    const metadata: ArgumentMetadata = { type: 'body', metatype: OffsetCommitDto, data: undefined };
    await expect(pipe.transform(commit({ committedOffset: 1 }), metadata)).resolves.toMatchObject({ generationId: -1 });
    expect((await refusal(OffsetCommitDto, commit({ committedOffset: 1 }, -2))).message).toContain('generationId');
    expect((await refusal(HeartbeatDto, { groupId: 'g', generationId: -2, memberId: 'm' })).message).toContain(
      'generationId',
    );
  });

  it('refuse a JoinGroup whose timeout is not a number and whose protocols are not a list, naming both', async () => {
    const error = await refusal(JoinGroupDto, {
      groupId: 'g',
      sessionTimeoutMs: 'soon',
      memberId: '',
      protocolType: 'consumer',
      protocols: 'range',
    });
    expect(error.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(error.message).toContain('sessionTimeoutMs');
    expect(error.message).toContain('protocols');
  });

  it('refuse a list where an entry object belongs, at any level, on the socket and over REST', async () => {
    const cases: [Type<unknown>, unknown, string][] = [
      [OffsetFetchDto, { groupId: 'g', topics: [[]], requireStable: true }, 'topics'],
      [OffsetCommitDto, { groupId: 'g', generationId: -1, topics: [{ name: 't', partitions: [[]] }] }, 'partitions'],
      [SyncGroupDto, { groupId: 'g', generationId: 1, memberId: 'm', assignments: [[]] }, 'assignments'],
      [ResetOffsetsDto, { topics: [[], []] }, 'topics'],
    ];
    for (const [dto, payload, field] of cases) {
      const error = await refusal(dto, payload);
      expect(error.errorCode).toBe(ErrorCode.INVALID_REQUEST);
      expect(error.message).toContain(field);
    }
  });
});
