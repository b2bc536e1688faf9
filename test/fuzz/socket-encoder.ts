import { createRequire } from 'node:module';
import { jsonText } from './json-text';

// The socket.io parser that socket.io-client itself loads (its own dependency, the same version).
const parser = createRequire(require.resolve('socket.io-client'))(
  'socket.io-parser',
) as typeof import('socket.io-parser');

type Packet = import('socket.io-parser').Packet;

/**
 * socket.io-parser's encoder, minus its recursion: the stock one walks the payload recursively
 * (`hasBinary`) and then hands it to JSON.stringify, so a case nested a few thousand levels could
 * overflow the fuzzer's stack before anything was sent. Non-binary packets are written here as the
 * stock encoder writes them (`<type>[<nsp>,][<id>]<json>`), with `jsonText`; a packet with binary
 * data (the fuzzer sends none over socket.io) still goes through the stock encoder.
 */
class IterativeEncoder extends parser.Encoder {
  override encode(packet: Packet): unknown[] {
    if (
      (packet.type !== parser.PacketType.EVENT && packet.type !== parser.PacketType.ACK) ||
      !containsBinary(packet.data)
    )
      return [packetText(packet)];
    return super.encode(packet);
  }
}

function packetText(packet: Packet): string {
  let text = String(packet.type);
  if (packet.nsp && packet.nsp !== '/') text += `${packet.nsp},`;
  if (packet.id != null) text += String(packet.id);
  if (packet.data != null) text += jsonText(packet.data) ?? '';
  return text;
}

function containsBinary(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (v instanceof ArrayBuffer || ArrayBuffer.isView(v) || (typeof Blob === 'function' && v instanceof Blob))
      return true;
    for (const child of Object.values(v)) stack.push(child);
  }
  return false;
}

/** For `io(url, { parser: iterativeParser })`: answers are still decoded by the stock decoder (JSON.parse does not recurse). */
export const iterativeParser = { ...parser, Encoder: IterativeEncoder };

export { packetText as socketPacketText };
