// The share-groups bench splits a node's CPU per ack between its event loop and its other threads
// from these readings: a misread field would put fdatasync's system time or GC's helpers on the wrong side.
import { statCpuMs, threadCpuMs, threadCpuSince } from './thread-cpu';

describe('statCpuMs', () => {
  it('reads utime and stime counted from the last parenthesis, whatever the command name holds', () => {
    const tail = 'S 1 2 3 4 5 6 7 8 9 10 1234 56 0 0 20 0 11 0 100 0 0';
    expect(statCpuMs(`4242 (node) ${tail}`)).toEqual({ userMs: 12_340, systemMs: 560 });
    expect(statCpuMs(`4242 (a (b) c) ${tail}`)).toEqual({ userMs: 12_340, systemMs: 560 });
  });

  it('refuses a line that is not a stat line', () => {
    expect(() => statCpuMs('no parenthesis here')).toThrow('not a /proc stat line');
    expect(() => statCpuMs('1 (x) S 1')).toThrow('no utime/stime');
  });
});

describe('threadCpuMs', () => {
  it('finds this process’s event-loop thread among its threads', () => {
    if (process.platform !== 'linux') return;
    const cpu = threadCpuMs(process.pid);
    for (const value of Object.values(cpu)) expect(value).toBeGreaterThanOrEqual(0);
    // Jest has run this file's code on the main thread by now: at least one tick of it is counted.
    expect(cpu.loopUserMs + cpu.loopSystemMs).toBeGreaterThan(0);
  });

  it('gives NaN for a process that is not there, and subtracts readings field by field', () => {
    expect(Number.isNaN(threadCpuMs(undefined).loopUserMs)).toBe(true);
    expect(Number.isNaN(threadCpuMs(2 ** 30).otherSystemMs)).toBe(true);
    const a = { loopUserMs: 10, loopSystemMs: 2, otherUserMs: 5, otherSystemMs: 1 };
    const b = { loopUserMs: 25, loopSystemMs: 4, otherUserMs: 9, otherSystemMs: 7 };
    expect(threadCpuSince(a, b)).toEqual({ loopUserMs: 15, loopSystemMs: 2, otherUserMs: 4, otherSystemMs: 6 });
  });
});
