import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route } from '../routes';

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
