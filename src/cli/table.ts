import type { Terminal } from './integrator.js';

// Output helpers of the integrator commands that print tables or --json.

/** `value` as indented JSON on stdout. */
export function printJson(term: Terminal, value: unknown): void {
  term.out.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Rows as columns, each as wide as its widest cell (the last one unpadded). */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')).join('\n');
}
