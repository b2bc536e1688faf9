import type { AclBinding } from '@cohort/protocol';
import { bindingKey, matchesFilter } from './acl-filters';
import { Authorizer } from './authorizer';
import { canonicalHost } from './host-address';

const binding = (host: string): AclBinding => ({
  principal: 'User:alice',
  host,
  resourceType: 'GROUP',
  resourceName: 'g',
  patternType: 'LITERAL',
  operation: 'READ',
  permission: 'ALLOW',
});

function allows(bindingHost: string, callerHost: string): boolean {
  const authorizer = new Authorizer({ superUsers: [], allowEveryoneIfNoAclFound: false });
  authorizer.setAcls([binding(bindingHost)]);
  return authorizer.authorize('User:alice', callerHost, 'READ', 'GROUP', 'g');
}

describe('ACL hosts are addresses, not strings', () => {
  it('writes every spelling of an address one way: IPv6 compressed and lower-case, IPv4-mapped as IPv4', () => {
    expect(canonicalHost('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(canonicalHost('::0001')).toBe('::1');
    expect(canonicalHost('[::1]')).toBe('::1');
    expect(canonicalHost('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalHost('::FFFF:7f00:1')).toBe('127.0.0.1');
    expect(canonicalHost('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(canonicalHost('10.0.0.7')).toBe('10.0.0.7');
    expect(canonicalHost('*')).toBe('*');
  });

  it('matches a binding host to the client address whichever way either is written', () => {
    for (const bindingHost of ['0:0:0:0:0:0:0:1', '::0001', '::1']) {
      expect({ bindingHost, allowed: allows(bindingHost, '::1') }).toEqual({ bindingHost, allowed: true });
      expect({ bindingHost, allowed: allows(bindingHost, '0:0:0:0:0:0:0:1') }).toEqual({ bindingHost, allowed: true });
    }
    expect(allows('::ffff:127.0.0.1', '127.0.0.1')).toBe(true);
    expect(allows('127.0.0.1', '::ffff:127.0.0.1')).toBe(true);
    expect(allows('::1', '127.0.0.1')).toBe(false);
    expect(allows('10.0.0.7', '10.0.0.8')).toBe(false);
  });

  it('lists, deletes and deduplicates bindings by address', () => {
    expect(matchesFilter(binding('::1'), { host: '0:0:0:0:0:0:0:1' })).toBe(true);
    expect(matchesFilter(binding('127.0.0.1'), { host: '::ffff:127.0.0.1' })).toBe(true);
    expect(bindingKey(binding('::0001'))).toBe(bindingKey(binding('::1')));
  });
});
