/**
 * Makes `key` the most recent entry of a Map (Maps keep insertion order) and drops the least
 * recent one past `max`: the bounded, least-recently-used memory of every in-process cache.
 */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}
