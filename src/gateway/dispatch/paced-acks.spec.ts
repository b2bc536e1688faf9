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
});
