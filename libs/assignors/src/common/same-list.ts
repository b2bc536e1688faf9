/**
 * Whether two lists hold the same elements in the same order (by ===). Members of a large group
 * mostly subscribe to the same topics, but a group read off the wire gives each member its own
 * array: comparing a member's list with the previous member's, element by element, is far cheaper
 * than hashing, joining or re-checking it, and on a process's first call it runs in a tight loop.
 */
export function sameList<T>(a: readonly T[], b: readonly T[] | null): boolean {
  if (a === b) return true;
  if (b === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
