// Topic ids must be Java's UUID.nameUUIDFromBytes of the name (KIP-848), with Kafka's Uuid hash,
// order and text form: the expected values were printed by Java 17 (UUID.nameUUIDFromBytes, then
// Kafka's Uuid.hashCode and toString formulas).
import { createHash } from 'node:crypto';
import { md5 } from './md5';
import { compareUuids, topicIdOf, uuidFromString, uuidHashCode, uuidToString } from './java-uuid';

describe('topic ids (UUID.nameUUIDFromBytes)', () => {
  it('computes MD5 as node:crypto does, for inputs around the block boundaries', () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 200]) {
      const input = new Uint8Array(length).map((_, i) => (i * 31 + length) & 0xff);
      expect(Buffer.from(md5(input)).toString('hex')).toBe(createHash('md5').update(input).digest('hex'));
    }
  });

  it.each([
    ['topic1', 'Ta3X7r16P8i5ART59aqotg', -1132702615],
    ['orders', 'EsUA7Qt4ORCftGrw8ka-hw', 1951395210],
    ['é中', '8G_U9vqWMbK415P_Dy5l8Q', -1124068534],
  ])('gives topic %s the id and hash Java gives it', (name, text, hash) => {
    const id = topicIdOf(name);
    expect(uuidToString(id)).toBe(text);
    expect(uuidHashCode(id)).toBe(hash);
    expect(uuidFromString(text)).toEqual(id);
  });

  it('orders ids as Uuid.compareTo does: signed most significant half, then signed least significant half', () => {
    const ids = [
      'AAAAAAAAAAAAAAAAAAAAAA',
      '_____________________w',
      'f____________________w',
      'gAAAAAAAAAAAAAAAAAAAAA',
      'AAAAAAAAAAH_________8w',
    ].map(uuidFromString);
    const sorted = ids.slice().sort(compareUuids).map(uuidToString);
    // 0x80.. is the most negative, 0xff..ff is -1, then 0, then 0x7f.. the largest.
    expect(sorted).toEqual([
      'gAAAAAAAAAAAAAAAAAAAAA',
      '_____________________w',
      'AAAAAAAAAAAAAAAAAAAAAA',
      'AAAAAAAAAAH_________8w',
      'f____________________w',
    ]);
  });
});
