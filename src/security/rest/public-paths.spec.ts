import { isProbe, isPublicDocument } from './public-paths';

describe('what needs no credential on REST', () => {
  it('lets a browser read GET /, the dashboard and every API document', () => {
    for (const path of [
      '/',
      '/?x=1',
      '/ui',
      '/ui/',
      '/ui/app.js',
      '/docs',
      '/docs/',
      '/docs/swagger-ui-bundle.js',
      '/docs-json',
      '/docs-yaml',
      '/docs/asyncapi.json',
      '/docs/asyncapi.yaml',
    ]) {
      expect({ path, public: isPublicDocument('GET', path) }).toEqual({ path, public: true });
    }
    expect(isPublicDocument('HEAD', '/ui/')).toBe(true);
  });

  it('keeps every other path, method and spelling behind the credential', () => {
    for (const path of [
      '/v1/groups',
      '/metrics',
      '/docsx',
      '/uix/a',
      '/ui/../v1/groups',
      '/docs/%2e%2e/v1/groups',
      '/docs/%2E./metrics',
      '/ui/./app.js',
      '//v1/groups',
    ]) {
      expect({ path, public: isPublicDocument('GET', path) }).toEqual({ path, public: false });
    }
    expect(isPublicDocument('POST', '/docs-json')).toBe(false);
    expect(isPublicDocument('DELETE', '/ui/')).toBe(false);
  });

  it('tells the probes apart, with or without a query', () => {
    expect(isProbe('/health/ready')).toBe(true);
    expect(isProbe('/health/live?verbose=1')).toBe(true);
    expect(isProbe('/health/../v1/groups')).toBe(false);
  });
});
