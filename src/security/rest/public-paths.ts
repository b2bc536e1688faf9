/** Liveness and readiness stay open to probes: they reveal nothing and a prober holds no token. */
const PROBES = /^\/health\/(live|ready)\/?$/;

/**
 * What a browser loads before it can hold a token: `GET /` (it sends a browser to the dashboard), the
 * dashboard's page and assets under `/ui`, and the API documents (the OpenAPI page, its assets,
 * `/docs-json`, `/docs-yaml`, `/docs/asyncapi.json` and `.yaml`). None holds data of the cluster: the
 * documents describe the API every release ships, and the dashboard asks for a token before its first
 * REST call. Rate limits, origins, allowed hosts and protected mode still apply to them.
 */
const DOCUMENTS = /^(\/|\/ui(\/.*)?|\/docs(\/.*)?|\/docs-json|\/docs-yaml)$/;

/** True for a probe path, answered whatever else the request carries. */
export function isProbe(originalUrl: string): boolean {
  return PROBES.test(pathOf(originalUrl));
}

/**
 * True when the request reads something public (GET or HEAD of a path above) and so needs no
 * credential. A path with a `.` or `..` segment, raw or percent-encoded, is never public, so that no
 * spelling of a public prefix can lead elsewhere.
 */
export function isPublicDocument(method: string, originalUrl: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const path = pathOf(originalUrl);
  return DOCUMENTS.test(path) && !/\/(\.|%2e){1,2}(\/|$)/i.test(path);
}

function pathOf(originalUrl: string): string {
  const query = originalUrl.indexOf('?');
  return query === -1 ? originalUrl : originalUrl.slice(0, query);
}
