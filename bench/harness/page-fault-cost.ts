/**
 * What this machine charges a process for a page of memory it touches for the first time, in µs per
 * 4 KiB page: the first write to each page of a new 64 MiB buffer.
 *
 * On bare metal that is well under a microsecond. A virtual machine whose host backs guest memory
 * lazily, or takes back what the guest frees, has charged 10–18 µs here: a fresh node forming a group of
 * 10,000 members takes about 55,000 page faults (some 220 MB touched for the first time), which at that
 * price is close to a second of the run. The benches print this beside figures made by growing processes, so figures from two
 * machines can be told apart from a change in the code.
 */
export function pageFaultMicros(): number {
  const bytes = 64 << 20;
  const page = 4096;
  const started = performance.now();
  // allocUnsafeSlow: a fresh allocation outside the pool, so its pages have not been touched yet.
  const buffer = Buffer.allocUnsafeSlow(bytes);
  for (let i = 0; i < bytes; i += page) buffer[i] = 1;
  return ((performance.now() - started) * 1000) / (bytes / page);
}
