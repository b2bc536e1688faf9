import { gcFlags } from './gc-policy';

describe('gcFlags', () => {
  it('always turns allocation-site pretenuring off', () => {
    expect(gcFlags(16, [])).toEqual(['--no-allocation-site-pretenuring']);
  });

  it('collects the young generation on the main thread alone with at most two CPUs', () => {
    expect(gcFlags(2, [])).toEqual(['--no-allocation-site-pretenuring', '--no-parallel-scavenge']);
    expect(gcFlags(1, [])).toContain('--no-parallel-scavenge');
    expect(gcFlags(3, [])).not.toContain('--no-parallel-scavenge');
  });

  it.each([['--parallel-scavenge'], ['--no-parallel-scavenge'], ['--single-threaded-gc'], ['--single_threaded_gc']])(
    'leaves the scavenge to the operator who chose with %s',
    (flag) => {
      expect(gcFlags(2, ['--max-old-space-size=4096', flag])).toEqual(['--no-allocation-site-pretenuring']);
    },
  );
});
