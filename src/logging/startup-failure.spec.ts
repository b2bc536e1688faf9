import { describeStartupFailure } from './startup-failure';

const listenError = (code: string, port: number) =>
  Object.assign(new Error(`listen ${code}: 0.0.0.0:${port}`), { code, syscall: 'listen', port, address: '0.0.0.0' });

describe('describeStartupFailure', () => {
  it('names PORT, or REPLICATION_PORT in cluster mode, for a port in use or not allowed', () => {
    expect(describeStartupFailure(listenError('EADDRINUSE', 3000), {})).toBe(
      'port 3000 on 0.0.0.0 is already in use (PORT=3000): stop the process that listens there, or set PORT to a free port',
    );
    expect(describeStartupFailure(listenError('EADDRINUSE', 4005), { PORT: '3005' })).toContain(
      '(REPLICATION_PORT=4005)',
    );
    expect(describeStartupFailure(listenError('EADDRINUSE', 7000), { REPLICATION_PORT: '7000' })).toContain(
      'set REPLICATION_PORT to a free port',
    );
    expect(describeStartupFailure(listenError('EACCES', 80), { PORT: '80' })).toBe(
      'no permission to listen on port 80 on 0.0.0.0 (PORT=80): ports below 1024 need privileges; set PORT to a port above 1023',
    );
  });

  it('keeps the stack of anything else', () => {
    const error = new Error('boom');
    expect(describeStartupFailure(error, {})).toBe(error.stack);
  });
});
