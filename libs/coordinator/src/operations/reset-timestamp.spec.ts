import { parseResetDatetime, parseResetDuration } from './reset-timestamp';

describe('reset times as kafka-consumer-groups.sh reads them (ConsumerGroupCommand, Utils.getDateTime)', () => {
  it.each([
    ['2026-12-05T10:00:00.000', Date.UTC(2026, 11, 5, 10)], // no zone: UTC, as Kafka appends Z
    ['2026-12-05T10:00:00.250Z', Date.UTC(2026, 11, 5, 10, 0, 0, 250)],
    ['2026-12-05T10:00:00.000+01:00', Date.UTC(2026, 11, 5, 9)],
    ['2026-12-05T10:00:00.000-0530', Date.UTC(2026, 11, 5, 15, 30)],
    ['2026-12-05T10:00:00.000+02', Date.UTC(2026, 11, 5, 8)],
    ['2026-12-05T10:00:00', Date.UTC(2026, 11, 5, 10)], // beyond Kafka: the milliseconds may be left out
    ['2024-02-29T23:59:59.999Z', Date.UTC(2024, 1, 29, 23, 59, 59, 999)],
  ])('datetime %s', (text, expected) => {
    expect(parseResetDatetime(text)).toBe(expected);
  });

  it.each([
    '2026-12-05',
    '2026-12-05 10:00:00.000',
    '2026-13-05T10:00:00.000',
    '2026-04-31T10:00:00.000',
    '2025-02-29T10:00:00.000',
    '2026-12-05T24:00:00.000',
    '2026-12-05T10:60:00.000',
    '2026-12-05T10:00:00.5',
    '2026-12-05T10:00:00.000+19:00',
    '2026-12-05T10:00:00.000z',
    'yesterday',
    '',
  ])('refuses datetime %j with INVALID_REQUEST naming the format', (text) => {
    expect(() => parseResetDatetime(text)).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }));
    expect(() => parseResetDatetime(text)).toThrow(/YYYY-MM-DDTHH:mm:SS\.sss/);
  });

  it.each([
    ['PT1H', 3_600_000],
    ['P1DT2H', 26 * 3_600_000],
    ['P2D', 2 * 86_400_000],
    ['PT30M', 1_800_000],
    ['PT1.5S', 1_500],
    ['pt10s', 10_000],
    ['PT-0.5S', -500],
    ['-PT10M', -600_000],
    ['PT1H-30M', 1_800_000],
  ])('duration %s', (text, expected) => {
    expect(parseResetDuration(text)).toBe(expected);
  });

  it.each(['', 'P', 'PT', 'P1DT', '1H', 'P1Y', 'P1W', 'P1M', 'PT1H30', 'PT1.5H'])(
    'refuses duration %j with INVALID_REQUEST',
    (text) => {
      expect(() => parseResetDuration(text)).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }));
    },
  );
});
