import { AssignorSet } from './assignor-set';

describe('AssignorSet: choosing the rebalance protocol as Kafka does (testSelectRebalanceProtocol)', () => {
  it('is cooperative only when every assignor supports it', () => {
    expect(new AssignorSet(['cooperative-sticky'], null).protocol).toBe('cooperative');
    expect(new AssignorSet(['cooperative-sticky', 'sticky'], null).protocol).toBe('eager');
    expect(new AssignorSet(['range'], null).protocol).toBe('eager');
    expect(
      new AssignorSet([{ name: 'mine', supportedProtocols: ['cooperative'], assign: () => ({}) }], null).protocol,
    ).toBe('cooperative');
    expect(new AssignorSet([{ name: 'default-eager', assign: () => ({}) }], null).protocol).toBe('eager');
  });

  it('gives every member its own instance of a built-in (sticky assignors remember their member)', () => {
    const a = new AssignorSet(['sticky'], null);
    const b = new AssignorSet(['sticky'], null);
    expect(a.byName('sticky')).not.toBe(b.byName('sticky'));
    expect(a.isBuiltIn(a.byName('sticky')!)).toBe(true);
  });

  it('with a server assignor, takes the protocol of a known built-in and eager otherwise', () => {
    expect(new AssignorSet([], 'cooperative-sticky').protocol).toBe('cooperative');
    expect(new AssignorSet([], 'some-plugin').protocol).toBe('eager');
  });

  it('refuses unknown names, duplicates, and non-assignors', () => {
    expect(() => new AssignorSet(['range', 'range'], null)).toThrow(/configured twice/);
    expect(() => new AssignorSet([{ name: 'x' } as never], null)).toThrow(/built-in name or an object/);
  });
});
