import { javaStringHashCode, kafkaAbs, partitionFor } from './placement';

describe('partitionFor', () => {
  it('places groups exactly as docs/protocol.md gives', () => {
    expect(partitionFor('my-group', 50)).toBe(12);
    expect(partitionFor('payments', 50)).toBe(13);
    expect(partitionFor('polygenelubricants', 50)).toBe(0);
  });

  it("matches Java's String.hashCode, including int32 wrap-around and UTF-16 code units", () => {
    expect(javaStringHashCode('')).toBe(0);
    expect(javaStringHashCode('a')).toBe(97);
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648);
    expect(javaStringHashCode('😀')).toBe(0xd83d * 31 + 0xde00); // two UTF-16 code units
  });

  it("maps Integer.MIN_VALUE to 0 like Kafka's Utils.abs", () => {
    expect(kafkaAbs(-2147483648)).toBe(0);
    expect(kafkaAbs(-5)).toBe(5);
  });
});
