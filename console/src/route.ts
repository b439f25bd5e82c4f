import { useEffect, useState } from 'preact/hooks';

/** Views live in the URL's hash (#/messages/12), so the server has one page to serve. */
export interface Route {
  /** Path segments after '#/': ['messages', '12']. */
  readonly segments: readonly string[];
}

function current(): Route {
  const path = location.hash.replace(/^#\/?/, '').split('?')[0] ?? '';
  return {
    segments: path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent),
  };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const changed = () => setRoute(current());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export function navigate(path: string): void {
  location.hash = `#/${path}`;
}
