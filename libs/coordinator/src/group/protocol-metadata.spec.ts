import { canonicalJson, parseSubscription } from './protocol-metadata';

describe('protocol metadata', () => {
  it('compares metadata by content, whatever the key order', () => {
    expect(canonicalJson({ topics: ['a'], userData: { x: 1, y: [2, { b: 1, a: 2 }] } })).toBe(
      canonicalJson({ userData: { y: [2, { a: 2, b: 1 }], x: 1 }, topics: ['a'] }),
    );
    expect(canonicalJson({ topics: ['a', 'b'] })).not.toBe(canonicalJson({ topics: ['b', 'a'] }));
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('sees a hostile "__proto__" key as content', () => {
    const a = JSON.parse('{"topics":["t"],"__proto__":{"x":1}}');
    const b = JSON.parse('{"topics":["t"],"__proto__":{"x":2}}');
    expect(canonicalJson(a)).not.toBe(canonicalJson(b));
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('reads a consumer subscription only when it has a list of topic names', () => {
    expect(parseSubscription({ topics: ['a'], userData: 1 })).toEqual({ topics: ['a'], userData: 1 });
    expect(parseSubscription({ topics: 'a' })).toBeUndefined();
    expect(parseSubscription({ topics: [1] })).toBeUndefined();
    expect(parseSubscription(['a'])).toBeUndefined();
    expect(parseSubscription(null)).toBeUndefined();
  });
});
