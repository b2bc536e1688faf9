import { Writable } from 'node:stream';
import { pino } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { prettyOnTerminal } from './pretty-on-terminal';

const FORGED = 'billing\nINFO: [Audit] User:admin granted ALL\r\u001b[2K\u009b\u2028';

/** What the app's root logger writes for these settings: JSON lines, and on a terminal what pino-pretty prints of them. */
function logged(isTty: boolean, log: (logger: pino.Logger) => void): { json: string; printed: string } {
  const { transport, ...options } = prettyOnTerminal(isTty);
  let json = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      json += chunk.toString();
      done();
    },
  });
  log(pino(options, sink).child({ context: 'Coordinator' }));
  // Without colours: their escape sequences are not what this test looks for.
  const pretty = transport ? prettyFactory({ ...transport.options, colorize: false }) : (line: string) => `${line}\n`;
  const printed = json
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => pretty(line))
    .join('');
  return { json, printed };
}

describe('log lines and text a client chose', () => {
  const logEverywhere = (logger: pino.Logger) => {
    logger.info(`group ${FORGED} rebalanced`);
    logger.info({ context: FORGED, groupId: FORGED, audit: { resourceName: FORGED } }, 'audit');
  };

  it('on a terminal, prints one line per record whatever control characters a field holds', () => {
    const { printed } = logged(true, logEverywhere);
    expect(printed.split('\n').filter((line) => line !== '')).toHaveLength(2);
    expect(printed).not.toContain('\u001b');
    expect(printed).not.toContain('\r');
    expect(printed).not.toContain('\u2028');
    expect(printed).toContain(
      'group billing\\nINFO: [Audit] User:admin granted ALL\\r\\u001b[2K\\u009b\\u2028 rebalanced',
    );
  });

  it('as JSON lines, writes one line per record with no raw control character', () => {
    const { json } = logged(false, logEverywhere);
    const lines = json.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(2);
    // eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
    expect(json).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    const [first, second] = lines.map((line) => JSON.parse(line) as { msg: string; groupId?: string });
    // C0 controls read back as they were (JSON escapes them); the separators JSON allows come back escaped.
    const escaped = FORGED.replace('\u009b', '\\u009b').replace('\u2028', '\\u2028');
    expect(first.msg).toBe(`group ${escaped} rebalanced`);
    expect(second.groupId).toBe(escaped);
  });
});
