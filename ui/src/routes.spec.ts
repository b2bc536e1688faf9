import { groupHref, parseRoute, topicHref } from './routes';

describe('dashboard routes', () => {
  it('maps the hash to a page', () => {
    expect(parseRoute('#/cluster')).toEqual({ page: 'cluster' });
    expect(parseRoute('#/topics')).toEqual({ page: 'topics' });
    expect(parseRoute('#/groups')).toEqual({ page: 'groups' });
    expect(parseRoute('')).toEqual({ page: 'groups' });
    expect(parseRoute('#/nowhere')).toEqual({ page: 'groups' });
    expect(parseRoute('#/groups/')).toEqual({ page: 'groups' });
  });

  it('round-trips group ids with characters that mean something in a URL', () => {
    for (const groupId of ['my-group', 'a/b', 'with space', 'hash#and?query', 'ünïcødé', '%41']) {
      expect(parseRoute(groupHref(groupId))).toEqual({ page: 'group', groupId });
    }
  });

  it('addresses a topic by its name', () => {
    expect(parseRoute(topicHref('orders.v2'))).toEqual({ page: 'topic', name: 'orders.v2' });
    expect(parseRoute('#/topics/')).toEqual({ page: 'topics' });
  });

  it('falls back to the list on a malformed escape', () => {
    expect(parseRoute('#/groups/%E0%A4%A')).toEqual({ page: 'groups' });
  });
});
