import { EventEmitter } from 'node:events';
import { ConnectionOutput, type OutputClock, type OutputLimitKind, type OutputLimits } from './connection-output';
import type { EngineConnection } from '../socket-io-internals';

/** An engine.io connection as the output limit sees it: packets announced, flushed into a websocket that the peer drains (or not). */
class FakeConnection extends EventEmitter {
  readonly id = 'c1';
  readonly remoteAddress = '127.0.0.1';
  readyState = 'open';
  readonly ws = { bufferedAmount: 0, terminate: () => undefined };
  readonly transport = { name: 'websocket', socket: this.ws };
  private writeBuffer = 0;

  /** socket.io writes a packet of `bytes`; with `flush`, the transport takes it at once (it was writable). */
  write(bytes: number, flush = true): void {
    this.emit('packetCreate', { data: 'x'.repeat(bytes) });
    this.writeBuffer += bytes;
    if (flush) this.flush();
  }

  flush(): void {
    this.emit('flush');
    this.ws.bufferedAmount += this.writeBuffer;
    this.writeBuffer = 0;
  }

  /** The peer reads `bytes`. */
  read(bytes: number): void {
    this.ws.bufferedAmount -= bytes;
  }

  close(): void {
    this.emit('close');
  }
}

class VirtualClock implements OutputClock {
  time = 0;
  private timers: { at: number; fn: () => void }[] = [];
  now = (): number => this.time;
  setTimeout = (fn: () => void, ms: number): object => {
    const timer = { at: this.time + ms, fn };
    this.timers.push(timer);
    return timer;
  };
  clearTimeout = (timer: unknown): void => {
    this.timers = this.timers.filter((t) => t !== timer);
  };
  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const timer of due) timer.fn();
  }
}

function watched(limits: OutputLimits) {
  const connection = new FakeConnection();
  const clock = new VirtualClock();
  const closes: { kind: OutputLimitKind; unsent: number }[] = [];
  const output = new ConnectionOutput(
    connection as unknown as EngineConnection,
    limits,
    (kind, unsent) => closes.push({ kind, unsent }),
    clock,
  );
  return { connection, clock, closes, output };
}

describe('ConnectionOutput', () => {
  it('closes a connection at once when its unsent output passes the hard limit, and only once', () => {
    const { connection, closes } = watched({ hardBytes: 1000, softBytes: 0, softSeconds: 10 });
    connection.write(600);
    connection.write(400);
    expect(closes).toEqual([]);
    connection.write(1);
    expect(closes).toEqual([{ kind: 'hard', unsent: 1001 }]);
    connection.write(5000);
    expect(closes).toHaveLength(1);
  });

  it('counts what the peer has read as sent: a client that keeps up is never closed', () => {
    const { connection, closes } = watched({ hardBytes: 1000, softBytes: 500, softSeconds: 10 });
    for (let i = 0; i < 100; i++) {
      connection.write(900);
      connection.read(900);
    }
    expect(closes).toEqual([]);
  });

  it('counts packets waiting in engine.io’s write buffer while the transport is busy', () => {
    const { connection, closes, output } = watched({ hardBytes: 1000, softBytes: 0, softSeconds: 10 });
    connection.write(400, false);
    connection.write(400, false);
    expect(output.unsentBytes()).toBe(800);
    connection.flush();
    expect(output.unsentBytes()).toBe(800);
    connection.write(300, false);
    expect(closes).toEqual([{ kind: 'hard', unsent: 1100 }]);
  });

  it('counts answers waiting in the write pacer, once, whether they wait or have been written', () => {
    const { connection, closes, output } = watched({ hardBytes: 1000, softBytes: 0, softSeconds: 10 });
    output.paceQueued(600);
    expect(output.unsentBytes()).toBe(600);
    output.paceWrite(600, () => connection.write(600));
    expect(output.unsentBytes()).toBe(600);
    output.paceQueued(401);
    expect(closes).toEqual([{ kind: 'hard', unsent: 1001 }]);
  });

  it('closes a connection that stays above the soft limit for its seconds without a break', () => {
    const { connection, clock, closes } = watched({ hardBytes: 0, softBytes: 1000, softSeconds: 10 });
    connection.write(1500);
    clock.advance(9_999);
    expect(closes).toEqual([]);
    connection.read(400); // still above it
    clock.advance(1);
    expect(closes).toEqual([{ kind: 'soft', unsent: 1100 }]);
  });

  it('starts the soft limit’s time again when the output dips below it, even if a later write takes it back above', () => {
    const { connection, clock, closes } = watched({ hardBytes: 0, softBytes: 1000, softSeconds: 10 });
    connection.write(1500);
    clock.advance(6_000);
    connection.read(1500); // a dip no one sampled
    connection.write(1500); // sampled just before this write: the dip is seen
    clock.advance(6_000);
    expect(closes).toEqual([]);
    clock.advance(4_000);
    expect(closes).toEqual([{ kind: 'soft', unsent: 1500 }]);
  });

  it('does not close a connection that is below the soft limit when its time runs out', () => {
    const { connection, clock, closes } = watched({ hardBytes: 0, softBytes: 1000, softSeconds: 10 });
    connection.write(1500);
    connection.read(1500);
    clock.advance(10_000);
    expect(closes).toEqual([]);
    connection.write(1500);
    clock.advance(10_000);
    expect(closes).toEqual([{ kind: 'soft', unsent: 1500 }]);
  });

  it('stops watching a connection that closed', () => {
    const { connection, clock, closes } = watched({ hardBytes: 2000, softBytes: 1000, softSeconds: 10 });
    connection.write(1500);
    connection.close();
    clock.advance(10_000);
    connection.write(5000);
    expect(closes).toEqual([]);
  });
});
