import { RequestEvent } from '@cohort/protocol';
import { jsonText } from './json-text';
import type { SeededRandom } from './seeded-random';
import { deepJsonText, randomString, randomValue } from './value-generators';

/**
 * One websocket frame below socket.io-client: engine.io packets (`4` message, `2` ping, ...) around
 * socket.io packets (`2` EVENT, `5` BINARY_EVENT, ...). `ackId` is set on a well-formed event frame,
 * which the server must answer with `43<ackId>[response]` on the same connection.
 */
export interface FrameCase {
  frame: string | Buffer;
  ackId?: number;
}

const MALFORMED = [
  '',
  '4',
  '42',
  '42[',
  '42{}',
  '42{"a":1}',
  '42["x"',
  '42[]',
  '42[1]',
  '42[null]',
  '42[{}]',
  '42"JoinGroup"',
  '49',
  '4-',
  '4x',
  '451-["Foo",{"_placeholder":true,"num":0}]',
  '450-["JoinGroup",{"_placeholder":true,"num":9}]',
  '45999999999-["Foo"]',
  '42/nsp,["Foo"]',
  '42/nsp,7["Foo"]',
  '40/admin,',
  '40/nsp,{"token":1}',
  '40',
  '40{"x":1}',
  '41',
  '41/nsp,',
  '43["x"]',
  '431["x"]',
  '44{"message":"x"}',
  '46-[]',
  '4299999999999999999999["Foo"]',
  '42-1["Foo"]',
  '421e3["Foo"]',
  '42["disconnect"]',
  '42["disconnecting"]',
  '42["connect"]',
  '42["newListener","x"]',
  '42["error",{}]',
  '42["removeListener"]',
  '42[7,{}]',
  '42[["JoinGroup"],{}]',
  '1',
  '2',
  '2probe',
  '3',
  '3probe',
  '5',
  '6',
  '7',
  '0',
  '0{}',
  'garbage',
  '\u0000\u0001',
];

export function frameCase(random: SeededRandom, ackId: number): FrameCase {
  return random.weighted<() => FrameCase>([
    [5, () => ({ frame: random.pick(MALFORMED) })],
    [
      4,
      () => {
        const event = random.weighted([
          [4, random.pick(Object.values(RequestEvent))],
          [1, randomString(random).slice(0, 50)],
          [1, '__proto__'],
        ]);
        const payload = random.weighted<() => string>([
          [3, () => jsonText(randomValue(random)) ?? 'null'],
          [1, () => deepJsonText(random, random.pick([101, 3_000, 200_000]))],
        ])();
        return { frame: `42${ackId}[${JSON.stringify(event)},${payload}]`, ackId };
      },
    ],
    [
      1,
      () => ({
        frame: `42${ackId}${JSON.stringify([random.pick(Object.values(RequestEvent))]).slice(0, -1)}${random.pick([',', ',{', ']]', '}'])}`,
      }),
    ],
    [1, () => ({ frame: Buffer.from(Array.from({ length: random.int(0, 64) }, () => random.int(0, 255))) })],
    [1, () => ({ frame: `4${random.int(0, 9)}${randomString(random).slice(0, 2_000)}` })],
  ])();
}

/**
 * Whether the node may read `frame` as a socket.io DISCONNECT of the default namespace (`41`, with an
 * ack id or `/,` after it, or anything else starting so): the connection stays open, and every later
 * event frame on it is a packet for a namespace it has left, which socket.io answers by closing it.
 */
export function mayLeaveNamespace(frame: string | Buffer): boolean {
  return typeof frame === 'string' && frame.startsWith('41');
}
