// Keeps the shape of Node's tick objects alive for the life of the process, so that
// `process.nextTick` stays on V8's fast path (docs/performance.md, "Issue 15, sixth part").
//
// Node 20 builds every tick as `{ [async_id_symbol]: id, [trigger_async_id_symbol]: id, callback,
// args }`, and Node's HTTP server queues about seven ticks per request. V8 records, for each key
// of that literal, the one map it saw there, and holds the map weakly. Tick objects live for
// microseconds, so a full garbage collection that finds none alive frees those maps; the next tick
// then meets a map the feedback does not name and V8 marks the key megamorphic for good. From
// then on the optimised code defines every key of every tick through the runtime, about 40% more
// instructions per 304 measured. Whether it happens depended on when a process's collections
// fell, which is why one build served the same read at two speeds in different processes.
//
// An object built by the same literal steps from the same keys holds those maps (each map keeps
// its parent alive), so the collector never frees them. It must be built before the process's
// first full collection, which is why the entry points import this module first, and with values
// of the kinds the ticks hold: Node reads the ids out of a Float64Array, so V8 stores them as
// doubles, and a small integer here would give the id fields another representation and so
// other maps.

import { AsyncResource } from 'node:async_hooks';

function findSymbol(symbols: symbol[], description: string): symbol | undefined {
  return symbols.find((symbol) => symbol.description === description);
}

/** An object of the tick objects' map, or null where this Node keeps its async ids otherwise. */
export function tickShaped(): object | null {
  // Node's async id keys are not exported; an AsyncResource carries the same two symbols.
  const resource = new AsyncResource('CartaTickShape', { requireManualDestroy: true });
  const symbols = Object.getOwnPropertySymbols(resource);
  const asyncIdKey = findSymbol(symbols, 'async_id_symbol');
  const triggerIdKey = findSymbol(symbols, 'trigger_async_id_symbol');
  if (asyncIdKey === undefined || triggerIdKey === undefined) return null;
  // Keys in the order of Node's literal, `callback` and `args` by name as it writes them.
  return { [asyncIdKey]: 0.5, [triggerIdKey]: 0.5, callback: tickShaped, args: undefined };
}

// Held from the global object: a module variable nothing reads would be a local of the bundle's
// top-level code, and collected with it.
Object.defineProperty(globalThis, Symbol.for('carta.tickShape'), { value: tickShaped() });
