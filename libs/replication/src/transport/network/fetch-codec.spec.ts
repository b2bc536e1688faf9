import { edgeCaseBatch } from '@cohort/replication/testing';
import type { FetchRequest, FetchResponse } from '../messages';
import { decodeFetchRequest, decodeFetchResponse, encodeFetchRequest, encodeFetchResponse } from './fetch-codec';
import { encodeFetchRequestFrame, encodeFetchResponseFrame, FrameReader, FrameType } from './frames';
import { fromWire, toWire } from './wire-value';

const batch = edgeCaseBatch;

const request: FetchRequest = {
  replicaId: 2,
  replicaEpoch: 2 ** 40 + 3,
  maxWaitMs: 500,
  partitions: [
    {
      partition: 0,
      currentLeaderEpoch: 7,
      fetchOffset: 2 ** 52,
      lastFetchedEpoch: -1,
      logStartOffset: 0,
      maxRecords: 1000,
    },
    { partition: 49, currentLeaderEpoch: 0, fetchOffset: 0, lastFetchedEpoch: 6, logStartOffset: 12, maxRecords: 1 },
  ],
};

const response: FetchResponse = {
  errorCode: 0,
  partitions: [
    {
      partition: 3,
      errorCode: 0,
      highWatermark: 9,
      logStartOffset: 0,
      logEndOffset: 2 ** 40,
      batches: [batch(2 ** 40 - 10, 7), batch(5, 0)],
      epochStarts: [{ epoch: 7, startOffset: 2 ** 40 - 10 }],
    },
    {
      partition: 4,
      errorCode: 0,
      highWatermark: 12,
      logStartOffset: 3,
      logEndOffset: 20,
      divergingEpoch: { epoch: 2, endOffset: 11 },
      batches: [],
    },
    { partition: 5, errorCode: 74, highWatermark: -1, logStartOffset: -1, logEndOffset: -1, batches: [] },
  ],
};

describe('fetch codec (the fixed layout of fetches between replicas)', () => {
  it('carries a request exactly, offsets of 2^52 and registration epochs beyond 32 bits included', () => {
    expect(decodeFetchRequest(encodeFetchRequest(request)!)).toEqual(request);
  });

  it('carries a response as the JSON path does: batches byte-exactly, tombstones, sparse offsets, divergence, epoch starts and errors', () => {
    const decoded = decodeFetchResponse(encodeFetchResponse(response)!);
    expect(decoded).toEqual(response);
    const json = toWire(response);
    expect(decoded).toEqual(fromWire(json.json, Buffer.concat(json.blobs)));
  });

  it('declines what the layout cannot carry exactly, so the caller sends it as JSON', () => {
    expect(encodeFetchRequest({ ...request, maxWaitMs: '500' as unknown as number })).toBeUndefined();
    expect(
      encodeFetchRequest({
        ...request,
        partitions: [{ ...request.partitions[0], fetchOffset: undefined as unknown as number }],
      }),
    ).toBeUndefined();
    const mixedEpochs = batch(0, 3);
    mixedEpochs.records[1] = { ...mixedEpochs.records[1], leaderEpoch: 2 };
    expect(
      encodeFetchResponse({ errorCode: 0, partitions: [{ ...response.partitions[0], batches: [mixedEpochs] }] }),
    ).toBeUndefined();
    const stringKey = batch(0, 3);
    stringKey.records[0] = { ...stringKey.records[0], key: 'k' as unknown as Buffer };
    expect(
      encodeFetchResponse({ errorCode: 0, partitions: [{ ...response.partitions[0], batches: [stringKey] }] }),
    ).toBeUndefined();
    expect(
      encodeFetchResponse({
        errorCode: 0,
        partitions: [{ ...response.partitions[0], batches: [{ baseOffset: 0, leaderEpoch: 0, records: [] }] }],
      }),
    ).toBeUndefined();
  });

  it('refuses every truncation, trailing bytes, unknown flags and impossible counts instead of guessing', () => {
    for (const [bytes, decode] of [
      [encodeFetchRequest(request)!, decodeFetchRequest],
      [encodeFetchResponse(response)!, decodeFetchResponse],
    ] as const) {
      for (let cut = 0; cut < bytes.length; cut++) expect(() => decode(bytes.subarray(0, cut))).toThrow();
      expect(() => decode(Buffer.concat([bytes, Buffer.from([0])]))).toThrow(/left over/);
    }
    const huge = encodeFetchRequest(request)!;
    huge.writeUInt32BE(0xffff_ffff, 24);
    expect(() => decodeFetchRequest(huge)).toThrow(/overruns/);
    const flags = encodeFetchResponse({ errorCode: 0, partitions: [response.partitions[2]] })!;
    flags[12 + 40] = 0x80;
    expect(() => decodeFetchResponse(flags)).toThrow(/flags/);
  });

  it('refuses a batch whose bytes were damaged on the way (its CRC)', () => {
    const bytes = encodeFetchResponse({
      errorCode: 0,
      partitions: [{ ...response.partitions[0], epochStarts: undefined }],
    })!;
    bytes[bytes.length - 5] ^= 0x01;
    expect(() => decodeFetchResponse(bytes)).toThrow(/checksum/);
  });

  it('frames decode as an ordinary fetch request and response, marked as the fixed layout', () => {
    const reader = new FrameReader(1 << 20);
    const frames = reader.push(
      Buffer.concat([
        encodeFetchRequestFrame(41, 2, request, 1 << 20)!,
        encodeFetchResponseFrame(41, 1, response, 1 << 20)!,
      ]),
    );
    expect(frames).toEqual([
      { type: FrameType.Request, requestId: 41, from: 2, payload: { kind: 'fetch', body: request }, fixedLayout: true },
      { type: FrameType.Response, requestId: 41, from: 1, payload: response, fixedLayout: true },
    ]);
  });

  it('keeps the frame size limit', () => {
    expect(() => encodeFetchResponseFrame(1, 1, response, 200)).toThrow(/exceeds the limit/);
  });
});
