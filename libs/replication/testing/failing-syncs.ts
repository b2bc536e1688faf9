import { open, type FileHandle } from 'node:fs/promises';

/**
 * Makes every `sync` and `datasync` of a FileHandle fail with `code` (ENOSPC by default) until
 * `restore()`, as a disk that is full or failing would; whatever mocked them before (a PageCacheModel)
 * is put back by `restore()`.
 */
export async function failSyncs(dir: string, code = 'ENOSPC'): Promise<{ restore(): void; readonly failures: number }> {
  const probe = await open(`${dir}/.sync-probe`, 'w');
  const proto = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  let failures = 0;
  const spies = (['sync', 'datasync'] as const).map((method) => {
    const spy = jest.spyOn(proto, method);
    const before = spy.getMockImplementation();
    spy.mockImplementation(() => {
      failures++;
      return Promise.reject(Object.assign(new Error(`${code}: injected failure, ${method}`), { code }));
    });
    return { spy, before };
  });
  return {
    restore: () => {
      for (const { spy, before } of spies) {
        if (before) spy.mockImplementation(before);
        else spy.mockRestore();
      }
    },
    get failures() {
      return failures;
    },
  };
}
