/** The dashboard's pages, addressed by the URL's hash so they can be bookmarked and linked. */
export type Route =
  | { page: 'cluster' }
  | { page: 'groups' }
  | { page: 'group'; groupId: string }
  | { page: 'topics' }
  | { page: 'topic'; name: string };

/** `#/groups/my%20group` → the group page of "my group"; anything unknown → the groups page. */
export function parseRoute(hash: string): Route {
  const [first, ...rest] = hash.replace(/^#\/?/, '').split('/');
  if (first === 'cluster') return { page: 'cluster' };
  if (first === 'topics' && rest.join('/') !== '') {
    try {
      return { page: 'topic', name: decodeURIComponent(rest.join('/')) };
    } catch {
      return { page: 'topics' };
    }
  }
  if (first === 'topics') return { page: 'topics' };
  if (first === 'groups' && rest.join('/') !== '') {
    try {
      return { page: 'group', groupId: decodeURIComponent(rest.join('/')) };
    } catch {
      return { page: 'groups' };
    }
  }
  return { page: 'groups' };
}

export function groupHref(groupId: string): string {
  return `#/groups/${encodeURIComponent(groupId)}`;
}

export function topicHref(name: string): string {
  return `#/topics/${encodeURIComponent(name)}`;
}
