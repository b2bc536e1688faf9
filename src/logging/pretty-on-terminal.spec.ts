import { prettyOnTerminal } from './pretty-on-terminal';

describe('prettyOnTerminal', () => {
  it('uses pino-pretty on a terminal and plain JSON lines otherwise', () => {
    expect(prettyOnTerminal(true).transport?.target).toBe('pino-pretty');
    expect(prettyOnTerminal(false).transport).toBeUndefined();
    // The target must resolve, or the node would fail to start on a terminal.
    expect(() => require.resolve('pino-pretty')).not.toThrow();
  });
});
