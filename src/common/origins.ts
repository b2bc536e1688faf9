/**
 * An origin as browsers send it in the `Origin` header: scheme, host and a port only when it is not
 * the scheme's default (`https://app.example.com`, `http://localhost:8080`), lower-cased by URL.
 * Returns null for anything else (a path, credentials, another scheme, `null`).
 */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    return null;
  return url.origin;
}

/** CORS_ORIGINS: comma-separated origins; throws naming the first one that is not an origin. */
export function parseOrigins(list: string): string[] {
  const origins: string[] = [];
  for (const entry of list
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const origin = normalizeOrigin(entry);
    if (origin === null) throw new Error(`"${entry}" is not an origin (scheme://host[:port], no path)`);
    origins.push(origin);
  }
  return origins;
}
