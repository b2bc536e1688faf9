import { withAnswerJson } from '@cohort/protocol';
import { ackPacket } from './paced-acks';

describe("the lane's ACK packet", () => {
  const answer = () => ({ errorCode: 0, memberId: 'm-1', memberEpoch: 3, heartbeatIntervalMs: 5000, assignment: null });

  afterEach(() => jest.restoreAllMocks());

  it('is socket.io\'s encoding: "3", the ack id and the JSON array of the arguments', () => {
    expect(ackPacket(17, [{ errorCode: 0 }])).toBe('317[{"errorCode":0}]');
    expect(ackPacket(4, [answer(), 'two'])).toBe(`34${JSON.stringify([answer(), 'two'])}`);
  });

  it('writes the JSON an answer carries instead of serializing it again, byte for byte the same', () => {
    const kept = withAnswerJson(answer());
    const stringify = jest.spyOn(JSON, 'stringify');
    const packet = ackPacket(123, [kept]);
    expect(stringify).not.toHaveBeenCalled();
    stringify.mockRestore();
    expect(packet).toBe(`3123${JSON.stringify([answer()])}`);
  });

  it('serializes an answer that carries its JSON among other arguments as any other', () => {
    const kept = withAnswerJson(answer());
    expect(ackPacket(5, [kept, kept])).toBe(`35${JSON.stringify([answer(), answer()])}`);
  });

  it('sends an INVALID_REQUEST naming the limit instead of an answer longer than the limit, without serializing it', () => {
    const names = Array.from({ length: 1000 }, (_, i) => `topic-${i}`);
    const group = { groupId: 'big', members: [{ memberId: 'm', subscribedTopicNames: names }] };
    const big = { errorCode: 0, groups: Array(100).fill(group) };
    expect(JSON.stringify([big]).length).toBeGreaterThan(1_000_000);
    const stringify = jest.spyOn(JSON, 'stringify');
    const packet = ackPacket(9, [big], 1_000_000);
    expect(stringify.mock.calls.some(([value]) => Array.isArray(value) && value[0] === big)).toBe(false);
    stringify.mockRestore();
    expect(packet.startsWith('39[')).toBe(true);
    expect(JSON.parse(packet.slice(2))).toEqual([
      {
        errorCode: 42,
        errorName: 'INVALID_REQUEST',
        errorMessage:
          'the answer would be longer than 1000000 bytes (MAX_SOCKET_OUTPUT_BUFFER_BYTES); ask for less at once',
      },
    ]);
    // Below the limit it is sent whole.
    expect(ackPacket(9, [big], 10_000_000)).toBe(`39${JSON.stringify([big])}`);
  });

  it('answers INVALID_REQUEST instead of throwing when the serializer cannot make the string (RangeError), never taking the node down', () => {
    jest.spyOn(JSON, 'stringify').mockImplementationOnce(() => {
      throw new RangeError('Invalid string length');
    });
    const packet = ackPacket(3, [{ errorCode: 0, groups: [] }]);
    expect(JSON.parse(packet.slice(2))[0]).toMatchObject({ errorCode: 42, errorName: 'INVALID_REQUEST' });
  });
});
