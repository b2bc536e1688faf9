import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export interface LogLine {
  level: number;
  msg: string;
  context?: string;
  summary?: Record<string, unknown>;
  req?: { method: string; url: string; headers: Record<string, string> };
  res?: { statusCode: number };
}

/** `npm start` with stdout not a terminal: the node's complete JSON lines so far, its summary line once printed, and a stop. */
export function startNode(dataDir: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [resolve(__dirname, 'run-ts.js'), 'src/main.ts'], {
    cwd: resolve(__dirname, '../..'),
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      OFFSETS_TOPIC_NUM_PARTITIONS: '50',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const lines = (): LogLine[] =>
    stdout
      .slice(0, stdout.lastIndexOf('\n') + 1)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as LogLine);
  const summary = new Promise<LogLine>((done, fail) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = lines().find((l) => l.summary !== undefined);
      if (line) done(line);
    });
    void exited.then((code) => fail(new Error(`the node exited (${code}) before its summary:\n${stdout}\n${stderr}`)));
  });
  summary.catch(() => undefined); // a test that expects the node to fail need not wait for its summary
  /** SIGTERM (a clean stop) by default; SIGKILL is a crash. */
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    child.kill(signal);
    await exited;
  };
  return { lines, summary, stop, stdout: () => stdout, stderr: () => stderr, exited, pid: child.pid! };
}
