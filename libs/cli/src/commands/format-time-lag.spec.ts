import { formatTimeLag } from './groups.command';

describe('formatTimeLag (the TIME-LAG column)', () => {
  it.each([
    [null, null],
    [0, '0s'],
    [4_500, '4.5s'],
    [42_400, '42s'],
    [450_000, '7m30s'],
    [7_500_000, '2h5m'],
    [273_600_000, '3d4h'],
  ])('%p ms reads %p', (ms, text) => {
    expect(formatTimeLag(ms)).toBe(text);
  });
});
