// The part of fs-native-extensions (holepunchto) that Cohort uses: an OS-level lock on an open file
// (open file description locks on Linux, flock on macOS), released by the kernel when the process dies.
declare module 'fs-native-extensions' {
  /** Takes an exclusive (or `shared`) lock on the whole file; false when another descriptor holds it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  export function unlock(fd: number): void;
}
