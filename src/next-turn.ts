/**
 * Lets the event loop answer what is waiting (a health probe, other venues' requests) between two
 * long synchronous steps of one request, such as building and then serialising a whole menu.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
