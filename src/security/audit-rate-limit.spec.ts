import { AuditRateLimit, type SuppressedLines } from './audit-rate-limit';

describe('AuditRateLimit', () => {
  let now = 0;
  const reports: SuppressedLines[] = [];
  const limit = () =>
    new AuditRateLimit(
      3,
      1000,
      (report) => reports.push(report),
      () => now,
    );

  beforeEach(() => {
    jest.useFakeTimers();
    now = 0;
    reports.length = 0;
  });
  afterEach(() => jest.useRealTimers());

  it('admits the first lines of a window, counts the rest and reports the count when the window ends', () => {
    const audit = limit();
    const admitted = Array.from({ length: 5 }, () => audit.admit('User:bob', '10.0.0.1', false));
    expect(admitted).toEqual([true, true, true, false, false]);
    expect(reports).toEqual([]);
    now = 1000;
    jest.advanceTimersByTime(1000);
    expect(reports).toEqual([{ principal: 'User:bob', suppressed: 2, windowMs: 1000 }]);
    expect(audit.admit('User:bob', '10.0.0.1', false)).toBe(true);
  });

  it('reports nothing for a window that suppressed nothing, and starts a new window after it', () => {
    const audit = limit();
    for (let i = 0; i < 3; i++) expect(audit.admit('User:bob', 'h', false)).toBe(true);
    now = 1500;
    expect(audit.admit('User:bob', 'h', false)).toBe(true);
    jest.advanceTimersByTime(5000);
    expect(reports).toEqual([]);
  });

  it('counts each principal apart, and User:ANONYMOUS per client address', () => {
    const audit = limit();
    for (let i = 0; i < 3; i++) audit.admit('User:ANONYMOUS', '10.0.0.1', true);
    expect(audit.admit('User:ANONYMOUS', '10.0.0.1', true)).toBe(false);
    expect(audit.admit('User:ANONYMOUS', '10.0.0.2', true)).toBe(true);
    expect(audit.admit('User:alice', '10.0.0.1', false)).toBe(true);
    audit.flush();
    expect(reports).toEqual([{ principal: 'User:ANONYMOUS', host: '10.0.0.1', suppressed: 1, windowMs: 1000 }]);
  });

  it('admits everything when the limit is 0', () => {
    const audit = new AuditRateLimit(0, 1000, (report) => reports.push(report));
    for (let i = 0; i < 1000; i++) expect(audit.admit('User:bob', 'h', false)).toBe(true);
  });
});
