// Keeps one of Node's tick objects alive for the life of the process, so that `process.nextTick`
// stays on V8's fast path (docs/performance.md, "Private internals relied on").
//
// Node (20, 22 and 24 alike) builds every tick as an object literal whose first keys are computed
// symbols (`{ [async_id_symbol]: id, [trigger_async_id_symbol]: id, ..., callback, args }`), and
// Node's HTTP server queues about seven ticks per request. For each key of such a literal V8
// records the one map it saw there and holds that map weakly. Tick objects live for microseconds,
// so a full garbage collection that finds none alive frees their maps; the next tick then meets a
// map the feedback does not name, and V8 marks the key megamorphic for good. From then on the
// optimised code defines every key of every tick through the runtime, and every request is
// markedly slower. Whether it happens depends on where a process's collections fall, so one build
// can serve the same read at two speeds in different processes.
//
// A tick object held for good keeps its map, and so the maps before it (a map keeps its parent
// alive). It has to be taken before the process's first full collection, which is why the entry
// points import this module first. Node does not hand its ticks out, but while one runs it is the
// current async resource, so the first tick this module queues takes itself. (An async hook's
// `init` would see every tick, but enabling one installs V8's promise hooks, which turns off
// V8's inlined promise paths for the rest of the process.) Only a tick the module queued is kept,
// and only once, should the module be evaluated twice in one process.

import { executionAsyncResource } from 'node:async_hooks';

const TICK = Symbol.for('carta.tick');

/** Queues a tick that keeps itself, held from the global object for the life of the process. */
function keepTick(): void {
  if (keptTick() !== undefined) return;
  const callback = () => {
    const resource = executionAsyncResource() as { callback?: unknown };
    // Only Node's own tick object, in case a later Node runs ticks under another resource.
    if (resource.callback === callback && keptTick() === undefined) Object.defineProperty(globalThis, TICK, { value: resource });
  };
  process.nextTick(callback);
}

/** The tick kept by this module, once it has run. */
export function keptTick(): object | undefined {
  return (globalThis as Record<symbol, object | undefined>)[TICK];
}

keepTick();
