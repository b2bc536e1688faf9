/** Runs `run`, expects it to throw an instance of `type`, and returns that error for closer checks. */
export function thrown<T extends Error>(type: abstract new (...args: never[]) => T, run: () => unknown): T {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error(`expected ${type.name} to be thrown`);
}
