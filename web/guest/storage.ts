// Local and session storage that never throw: private modes and full quotas turn them into a
// no-op (and so does their absence, as in the unit tests that run the cart under Node). The cart
// lives in local storage; the guest's food filter for the visit (the tab) in session storage.

interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

type Where = 'localStorage' | 'sessionStorage';

const store = (where: Where): KeyValueStore | undefined => (globalThis as { [K in Where]?: KeyValueStore })[where];

export function load<T>(key: string, where: Where = 'localStorage'): T | null {
  try {
    const text = store(where)?.getItem(key);
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

export function save(key: string, value: unknown, where: Where = 'localStorage'): void {
  try {
    if (value === null) store(where)?.removeItem(key);
    else store(where)?.setItem(key, JSON.stringify(value));
  } catch {
    // Nothing to do: the cart lives for this page view only.
  }
}

/** A random key for Idempotency-Key (crypto.randomUUID needs a secure context; this does not). */
export function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
