import { answerJson, withAnswerJson } from './answer-json';

describe('an answer that carries its JSON', () => {
  const answer = () => ({ errorCode: 0, memberId: 'm-1', memberEpoch: 3, heartbeatIntervalMs: 5000, assignment: null });

  it('keeps the JSON of its fields, in their order, and is frozen', () => {
    const kept = withAnswerJson(answer());
    expect(answerJson(kept)).toBe(JSON.stringify(answer()));
    expect(Object.isFrozen(kept)).toBe(true);
    expect(() => {
      (kept as { memberEpoch: number }).memberEpoch = 4;
    }).toThrow(TypeError);
  });

  it('looks like the plain answer to JSON, a spread, a deep equality and a key listing', () => {
    const kept = withAnswerJson(answer());
    expect(JSON.stringify(kept)).toBe(JSON.stringify(answer()));
    expect({ ...kept }).toStrictEqual(answer());
    expect(kept).toStrictEqual(answer());
    expect(Reflect.ownKeys(kept).filter((key) => Object.prototype.propertyIsEnumerable.call(kept, key))).toEqual(
      Object.keys(answer()),
    );
    // A copy is a plain answer again: it carries no JSON that could disagree with a change made to it.
    expect(answerJson({ ...kept })).toBeUndefined();
  });

  it('is found on no other value', () => {
    for (const value of [answer(), [answer()], null, undefined, 0, 'text', Object.freeze(answer())])
      expect(answerJson(value)).toBeUndefined();
  });
});
