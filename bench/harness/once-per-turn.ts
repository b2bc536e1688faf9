/**
 * `fn` wrapped so that however many times it is called in one turn of the event loop, it runs once, in
 * the next turn: a worker process reports its members' status once per turn, not once per member change.
 */
export function oncePerTurn(fn: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      fn();
    });
  };
}
