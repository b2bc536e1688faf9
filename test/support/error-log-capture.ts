import { Logger } from '@nestjs/common';

/**
 * Records what the app logs at error level through Nest's Logger (the transports' exception filters
 * log an internal error with its stack there), per test: a client's mistake must not show up as one.
 */
export function captureErrorLogs(): { lines(): string[] } {
  let spy: jest.SpyInstance | null = null;
  beforeEach(() => {
    spy = jest.spyOn(Logger.prototype, 'error');
  });
  afterEach(() => {
    spy?.mockRestore();
    spy = null;
  });
  return {
    lines: () => (spy?.mock.calls ?? []).map((args: unknown[]) => args.map(String).join(' ')),
  };
}
