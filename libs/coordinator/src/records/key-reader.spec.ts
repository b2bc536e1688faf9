import { KeyReader } from './key-reader';
import { decodeKey, groupMetadataKey, offsetCommitKey, RecordDecodeError } from './record-codec';

describe("KeyReader (the loader's key decoder)", () => {
  it('decodes every key exactly as decodeKey does, escapes, odd forms and bad keys included', () => {
    const keys = [
      offsetCommitKey('g', 'orders', 3),
      offsetCommitKey('g', 'orders', 4),
      offsetCommitKey('g', 'payments', 0),
      offsetCommitKey('quote"and\\slash', 'tab\there', 12),
      offsetCommitKey('🚀 group', 'ünïcode', 2_147_483_647),
      offsetCommitKey('', '', 0),
      groupMetadataKey('g'),
      Buffer.from('[0,"g","t",5]'),
      Buffer.from('[1, "g", "t", 5]'),
      Buffer.from('[1,"g","t",1e2]'),
      Buffer.from('[3,"g"]'),
      Buffer.from('[1,"g","t",-1]'),
    ];
    const reader = new KeyReader();
    for (const key of keys) expect(reader.decode(key)).toEqual(decodeKey(key));
    for (const bad of ['[1,"g","t","x"]', '[1,"g","t",05]', '[1,"g","t",5', 'not json', '{"a":1}']) {
      expect(() => reader.decode(Buffer.from(bad))).toThrow(RecordDecodeError);
    }
  });

  it('decodes a key that starts like the previous one exactly as decodeKey does, however it ends', () => {
    const reader = new KeyReader();
    const valid = [
      '[1,"g","t",5]',
      '[1,"g","t",6]',
      '[1,"g","t",0]',
      '[1,"g","t",123456789012345]',
      '[1,"g","t",1234567890123456]',
      '[1,"g","t",7,8]',
      '[1,"g","t",9]',
      '[1,"g","t",]',
    ];
    for (const key of valid) {
      const bytes = Buffer.from(key);
      let expected: unknown;
      try {
        expected = decodeKey(bytes);
      } catch (error) {
        expected = error;
      }
      if (expected instanceof Error) expect(() => reader.decode(bytes)).toThrow(RecordDecodeError);
      else expect(reader.decode(bytes)).toEqual(expected);
    }
    for (const bad of ['[1,"g","t",05]', '[1,"g","t",5', '[1,"g","t",x]']) {
      reader.decode(Buffer.from('[1,"g","t",1]'));
      expect(() => reader.decode(Buffer.from(bad))).toThrow(RecordDecodeError);
    }
  });

  it('reads a key in place inside a larger buffer, as a scan hands it over', () => {
    const reader = new KeyReader();
    for (const key of [offsetCommitKey('g', 'orders', 7), groupMetadataKey('g'), Buffer.from('[1,"a\\"b","t",1]')]) {
      const frame = Buffer.concat([Buffer.from('["x",'), key, Buffer.from('"]tail')]);
      expect(reader.decodeAt(frame, 5, 5 + key.length)).toEqual(decodeKey(key));
    }
  });

  it('gives the records of one group and topic the same strings, and one topic name one string across groups', () => {
    const reader = new KeyReader();
    const a = reader.decode(offsetCommitKey('group-a', 'orders', 0));
    const b = reader.decode(offsetCommitKey('group-a', 'orders', 1));
    const c = reader.decode(offsetCommitKey('group-b', 'invoices', 0));
    const d = reader.decode(offsetCommitKey('group-c', 'orders', 0));
    expect(
      [a, b, c, d].map((k) => (k.type === 'offset-commit' ? `${k.groupId}/${k.topic}/${k.partition}` : k.type)),
    ).toEqual(['group-a/orders/0', 'group-a/orders/1', 'group-b/invoices/0', 'group-c/orders/0']);
  });
});
