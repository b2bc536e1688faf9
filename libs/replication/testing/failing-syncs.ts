import { open, type FileHandle } from 'node:fs/promises';
import { nodeFs } from './page-cache-model';

/**
 * Makes every `sync` and `datasync` of a FileHandle, and every callback `fs.fdatasync`, fail with
 * `code` (ENOSPC by default) until `restore()`, as a disk that is full or failing would; whatever
 * mocked them before (a PageCacheModel) is put back by `restore()`.
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
  // The log journal fdatasyncs through the callback API on its descriptor: that fails the same way.
  const fdatasync = jest.spyOn(nodeFs(), 'fdatasync');
  const fdatasyncBefore = fdatasync.getMockImplementation();
  fdatasync.mockImplementation((_fd: number, callback: (error: Error | null) => void) => {
    failures++;
    const error = Object.assign(new Error(`${code}: injected failure, fdatasync`), { code });
    process.nextTick(() => callback(error));
  });
  return {
    restore: () => {
      if (fdatasyncBefore) fdatasync.mockImplementation(fdatasyncBefore);
      else fdatasync.mockRestore();
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
