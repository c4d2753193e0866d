/** What the buffer writes to: sonic-boom (pino.destination), synchronous, with no buffer of its own. */
interface LogOut {
  write(text: string): unknown;
  flushSync(): void;
}

/**
 * Log lines gathered into one write of about `minChars` characters, or whatever has gathered
 * after `flushMs`. sonic-boom can buffer too (its minLength), but it measures the UTF-8 length of
 * everything gathered so far on every line it adds, so a line costs more the fuller the buffer
 * (docs/performance.md, "What every request pays"). Here a line costs a push; the length is a
 * character count, which is all a threshold needs, and sonic-boom measures each batch once when
 * it is written.
 */
export class LogBuffer {
  private lines: string[] = [];
  private chars = 0;

  constructor(
    private readonly out: LogOut,
    private readonly minChars: number,
    flushMs: number,
  ) {
    setInterval(() => this.flush(), flushMs).unref();
  }

  write(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= this.minChars) this.flush();
    return true;
  }

  /** Hands what has gathered to the output, which writes it at once. */
  flush(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.out.write(text);
  }

  /** On exit: the lines of the last moments go out before the process does. */
  flushSync(): void {
    this.flush();
    this.out.flushSync();
  }
}
