// Local storage that never throws: private modes and full quotas turn it into a no-op (and so
// does its absence, as in the unit tests that run the cart under Node).

interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const store = (): KeyValueStore | undefined => (globalThis as { localStorage?: KeyValueStore }).localStorage;

export function load<T>(key: string): T | null {
  try {
    const text = store()?.getItem(key);
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

export function save(key: string, value: unknown): void {
  try {
    if (value === null) store()?.removeItem(key);
    else store()?.setItem(key, JSON.stringify(value));
  } catch {
    // Nothing to do: the cart lives for this page view only.
  }
}

/** A random key for Idempotency-Key (crypto.randomUUID needs a secure context; this does not). */
export function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
