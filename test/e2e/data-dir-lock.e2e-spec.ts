import { join } from 'node:path';
import { startNode } from '../support/spawned-node';
import { tempDataDir } from '../support/test-app';
import { TmpfsMount } from '../support/tmpfs-mount';

jest.setTimeout(120_000);

/**
 * One node per data directory (a lock on DATA_DIR for the node's life, which a crash cannot leave
 * stuck), and a start on a disk that cannot take writes: each refusal is one line naming the directory.
 */
describe('DATA_DIR at start (e2e, real processes)', () => {
  it('refuses a second node on the same DATA_DIR with one line naming the directory and the holder, and a SIGKILLed holder does not block the next start', async () => {
    const data = tempDataDir();
    let first = startNode(data.dir);
    try {
      const url = String((await first.summary).summary!.url);
      const second = startNode(data.dir);
      second.summary.catch(() => undefined);
      expect(await second.exited).toBe(1);
      const refusal = second.stderr().trim().split('\n');
      expect(refusal).toHaveLength(1);
      expect(refusal[0]).toContain(`DATA_DIR ${data.dir} is in use by another Cohort node (pid ${first.pid} on host`);
      expect(second.stdout()).toBe('');
      // The first node never noticed.
      expect((await fetch(`${url}/health/ready`)).status).toBe(200);

      await first.stop('SIGKILL');
      first = startNode(data.dir);
      expect((await first.summary).summary).toMatchObject({ ready: true, dataDir: data.dir });
    } finally {
      await first.stop('SIGKILL').catch(() => undefined);
      data.remove();
    }
  });

  it('refuses to start on a full disk, and on one that cannot be written, with one line that says so', async () => {
    const disk = TmpfsMount.create('2m');
    try {
      disk.fill(16 * 1024);
      const full = startNode(join(disk.dir, 'data'));
      full.summary.catch(() => undefined);
      expect(await full.exited).toBe(1);
      expect(full.stderr().trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(`^cohort: failed to start: DATA_DIR ${join(disk.dir, 'data')} is full: .*ENOSPC`),
        ),
      ]);

      disk.resize('8m');
      disk.remount('ro');
      const readOnly = startNode(join(disk.dir, 'data'));
      readOnly.summary.catch(() => undefined);
      expect(await readOnly.exited).toBe(1);
      expect(readOnly.stderr().trim().split('\n')).toEqual([
        expect.stringMatching(/^cohort: failed to start: cannot open DATA_DIR .*EROFS/),
      ]);
    } finally {
      disk.remove();
    }
  });
});
