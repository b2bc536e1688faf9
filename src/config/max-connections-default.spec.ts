import { DEFAULT_MAX_CONNECTIONS, defaultMaxConnections, openFilesLimit } from './max-connections-default';

const limits = (soft: string, hard: string) =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max cpu time              unlimited            unlimited            seconds   ',
    `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     `,
    'Max locked memory         8388608              8388608              bytes     ',
  ].join('\n');

describe('the default of MAX_CONNECTIONS', () => {
  it("reads the process's soft limit on open files", () => {
    expect(openFilesLimit(() => limits('20000', '40000'))).toBe(20_000);
    expect(openFilesLimit(() => limits('unlimited', 'unlimited'))).toBeNull();
    expect(openFilesLimit(() => 'no such line')).toBeNull();
    expect(
      openFilesLimit(() => {
        throw new Error('ENOENT: /proc/self/limits (not Linux)');
      }),
    ).toBeNull();
  });

  it('is 100,000 where the process may open more files than that and its reserve', () => {
    expect(defaultMaxConnections(1_048_576)).toBe(DEFAULT_MAX_CONNECTIONS);
    expect(defaultMaxConnections(null)).toBe(DEFAULT_MAX_CONNECTIONS);
  });

  it('leaves a tenth of a lower limit, and at least 256 descriptors, to the node itself', () => {
    expect(defaultMaxConnections(20_000)).toBe(18_000);
    expect(defaultMaxConnections(1_024)).toBe(768);
    expect(defaultMaxConnections(100)).toBe(1);
  });
});
