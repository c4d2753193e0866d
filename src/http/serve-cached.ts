// The one seam where a request may be answered without a promise. Services answer with promises;
// those whose reads are memoised also offer a synchronous `peek`. A hot read that `peek` answers
// runs in the turn that read its request, without the promises and microtasks an `await` costs
// (docs/performance.md, "Hot reads").

/** Sends what `peek` has at once; otherwise waits for `read` and sends that. */
export function serveCached<T>(peek: () => T | undefined, read: () => Promise<T>, send: (value: T) => void): void | Promise<void> {
  const hit = peek();
  if (hit !== undefined) return send(hit);
  return read().then(send);
}

/** `use(value)` at once when the value is at hand, once it is when it is a promise (the request gate's steps). */
export function whenReady<T, R>(value: T | Promise<T>, use: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(use) : use(value);
}
