import { groupIdOfPathSegment, groupPathSegment } from './path-segment';

describe('a group id as a URL path segment', () => {
  it('survives URL parsing, which removes dot segments, and reads back to the same id', () => {
    for (const groupId of ['.', '..', '%2E', '%2e%2E', '.%2E', '...', 'a/../b', 'billing', 'a b#c?d', '%252E']) {
      const url = new URL(`http://node/v1/groups/${groupPathSegment(groupId)}/offsets`);
      const segment = /^\/v1\/groups\/([^/]+)\/offsets$/.exec(url.pathname)?.[1];
      expect({ groupId, read: segment === undefined ? undefined : groupIdOfPathSegment(segment) }).toEqual({
        groupId,
        read: groupId,
      });
    }
  });
});
