/** Checks of a metadata-store call's arguments before anything reaches Redis (the caller's bug, reported as such). */
export function requireInt(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer, got ${value}`);
}

export function requirePositiveInt(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(`${name} must be a positive integer (ms), got ${value}`);
}
