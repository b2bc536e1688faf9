import { MAX_REQUEST_DEPTH, requestDepthProblem } from './request-shape';

function nested(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

describe('requestDepthProblem', () => {
  it('accepts scalars, shallow requests and exactly MAX_REQUEST_DEPTH levels', () => {
    for (const value of [
      undefined,
      null,
      0,
      'x',
      true,
      [],
      {},
      { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] },
    ]) {
      expect(requestDepthProblem(value)).toBeNull();
    }
    expect(requestDepthProblem(nested(MAX_REQUEST_DEPTH, (v) => [v]))).toBeNull();
    expect(requestDepthProblem(nested(MAX_REQUEST_DEPTH, (v) => ({ a: v })))).toBeNull();
  });

  it('names the limit one level past it, for arrays, objects and mixes', () => {
    const message = `the request is nested deeper than ${MAX_REQUEST_DEPTH} levels`;
    expect(requestDepthProblem(nested(MAX_REQUEST_DEPTH + 1, (v) => [v]))).toBe(message);
    expect(requestDepthProblem(nested(MAX_REQUEST_DEPTH + 1, (v) => ({ a: v })))).toBe(message);
    expect(requestDepthProblem({ shallow: 1, deep: nested(MAX_REQUEST_DEPTH, (v) => ({ b: [v] })) })).toBe(message);
  });

  it('measures a million levels without recursion (no stack overflow)', () => {
    expect(requestDepthProblem(nested(1_000_000, (v) => [v]))).not.toBeNull();
  });

  it('counts a binary attachment as one leaf', () => {
    expect(requestDepthProblem({ data: Buffer.alloc(1_000_000), raw: new ArrayBuffer(8) })).toBeNull();
  });

  it('takes its own limit', () => {
    expect(requestDepthProblem([[1]], 1)).toBe('the request is nested deeper than 1 levels');
    expect(requestDepthProblem([1], 1)).toBeNull();
  });
});
