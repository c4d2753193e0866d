/**
 * `use(value)` at once when the value is at hand, once it is when it is a promise. Memoised reads
 * return plain values, and a hot request that meets only those runs in one turn, without the
 * promises and microtasks an `await` would cost it (docs/performance.md, issue 15 seventh part).
 */
export function whenReady<T, R>(value: T | Promise<T>, use: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(use) : use(value);
}
