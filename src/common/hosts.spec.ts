import { hostNameOf, isIpLiteral, parseAllowedHosts } from './hosts';

describe('Host header names', () => {
  it('reads the host name of a Host header, lower-cased, without port or final dot', () => {
    expect(hostNameOf('Attacker.Example.:8080')).toBe('attacker.example');
    expect(hostNameOf('localhost')).toBe('localhost');
    expect(hostNameOf('[::1]:3000')).toBe('[::1]');
    expect(hostNameOf('0x7f.1')).toBe('127.0.0.1');
  });

  it('is null for what is not a host', () => {
    for (const header of ['user@host', 'host/path', 'a b', '', 'host?x']) expect(hostNameOf(header)).toBeNull();
  });

  it('tells IP literals from names that DNS could rebind', () => {
    expect(isIpLiteral('127.0.0.1')).toBe(true);
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('[::ffff:127.0.0.1]')).toBe(true);
    expect(isIpLiteral('127.0.0.1.nip.io')).toBe(false);
    expect(isIpLiteral('localhost')).toBe(false);
  });

  it('parses ALLOWED_HOSTS into lower-cased names and names the first entry that is not one', () => {
    expect(parseAllowedHosts(' Cohort.Internal , dash.example.com,,')).toEqual(['cohort.internal', 'dash.example.com']);
    expect(parseAllowedHosts('')).toEqual([]);
    expect(() => parseAllowedHosts('ok.example, https://bad.example')).toThrow(
      '"https://bad.example" is not a host name',
    );
    expect(() => parseAllowedHosts('host.example:8080')).toThrow('is not a host name');
  });
});
