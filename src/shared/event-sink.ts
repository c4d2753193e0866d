/** Where a stream's events go: an SSE response (src/http/sse.ts) or, in tests, anything alike. */
export interface EventSink {
  /** Queues the text; false once the reader is behind (wait for `onDrain`). */
  write(text: string): boolean;
  onDrain(listener: () => void): void;
  onClose(listener: () => void): void;
  /** Ends the response (server shutdown, a revoked key): the client reconnects. */
  end(): void;
  /** Drops the connection at once (a reader too slow to keep). */
  destroy(): void;
}
