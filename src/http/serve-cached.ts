// The one seam where a request may be answered without a promise. Services answer with promises;
// those whose reads are memoised also offer a synchronous `peek`. A hot read that `peek` answers
// runs in the turn that read its request, without the promises and microtasks an `await` costs
// (docs/performance.md, "Hot reads").

/** Uses what `peek` has at once (a reply sent, a request admitted); otherwise waits for `read` and uses that. */
export function serveCached<T, R>(peek: () => T | undefined, read: () => Promise<T>, use: (value: T) => R | Promise<R>): R | Promise<R> {
  const hit = peek();
  if (hit !== undefined) return use(hit);
  return read().then(use);
}

/** `use(value)` at once when the value is at hand, once it is when it is a promise (the request gate's steps). */
export function whenReady<T, R>(value: T | Promise<T>, use: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(use) : use(value);
}
