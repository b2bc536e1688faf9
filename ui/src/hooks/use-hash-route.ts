import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'cluster' }
  | { page: 'groups' }
  | { page: 'group'; groupId: string }
  | { page: 'topics' };

/** `#/groups/my%20group` → the group page of "my group"; anything unknown → the groups page. */
export function parseRoute(hash: string): Route {
  const [first, ...rest] = hash.replace(/^#\/?/, '').split('/');
  if (first === 'cluster') return { page: 'cluster' };
  if (first === 'topics') return { page: 'topics' };
  if (first === 'groups' && rest.length > 0 && rest.join('/') !== '') {
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

/** The page to show, following the address bar's hash (links, back and forward). */
export function useHashRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
