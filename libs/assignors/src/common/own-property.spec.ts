import { getOwn, setOwn } from './own-property';

describe('own-property records', () => {
  it.each(['c1', 'toString', 'hasOwnProperty', 'constructor', '__proto__'])(
    'stores and reads %s as an ordinary own key',
    (key) => {
      const record: Record<string, number> = {};
      setOwn(record, key, 7);
      expect(Object.keys(record)).toEqual([key]);
      expect(Object.getOwnPropertyDescriptor(record, key)).toEqual({
        value: 7,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      expect(getOwn(record, key)).toBe(7);
      expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    },
  );

  it('keeps a key of an object without a prototype', () => {
    const record = Object.create(null) as Record<string, number>;
    setOwn(record, '__proto__', 1);
    expect(getOwn(record, '__proto__')).toBe(1);
  });
});
