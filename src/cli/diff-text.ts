import type { MenuDiff, SyncCatalogResult } from '@carta/client';

// How `carta diff` and `carta push --dry-run` print what changes: one line per item,
// `+` added or created, `-` removed, `~` changed with its read-shape field names. Coloured only for
// a person: stdout a terminal and NO_COLOR absent or empty (https://no-color.org).

const SECTIONS = ['categories', 'ingredients', 'products'] as const;

export interface Palette {
  added(text: string): string;
  removed(text: string): string;
  changed(text: string): string;
  dim(text: string): string;
}

const sgr = (code: number) => (text: string) => `\x1b[${code}m${text}\x1b[0m`;
const plain = (text: string) => text;

export const COLOURS: Palette = { added: sgr(32), removed: sgr(31), changed: sgr(33), dim: sgr(2) };
export const NO_COLOURS: Palette = { added: plain, removed: plain, changed: plain, dim: plain };

/** Colours when `out` is a terminal and the environment does not ask for none. */
export function paletteFor(out: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Palette {
  return out.isTTY === true && !env.NO_COLOR ? COLOURS : NO_COLOURS;
}

const added = (p: Palette, ref: string) => `  ${p.added(`+ ${ref}`)}`;
const removed = (p: Palette, ref: string) => `  ${p.removed(`- ${ref}`)}`;
const changed = (p: Palette, ref: string, fields: string[]) =>
  `  ${p.changed(`~ ${ref}`)}${fields.length > 0 ? `: ${fields.join(', ')}` : ''}`;

/** `carta diff`: a heading, then per section its counts and one line per item (nothing when equal). */
export function diffText(diff: MenuDiff, p: Palette): string {
  const total = SECTIONS.reduce((n, s) => n + diff[s].added.length + diff[s].removed.length + diff[s].changed.length, 0);
  if (total === 0) return `no differences between ${diff.from} and ${diff.to}`;
  const lines = [`diff ${diff.from} -> ${diff.to}`];
  const width = Math.max(...SECTIONS.map((s) => s.length));
  for (const s of SECTIONS) {
    const d = diff[s];
    const summary = `${d.added.length} added, ${d.removed.length} removed, ${d.changed.length} changed`;
    lines.push(`${s.padEnd(width)}  ${d.added.length + d.removed.length + d.changed.length === 0 ? p.dim('no changes') : summary}`);
    for (const ref of d.added) lines.push(added(p, ref));
    for (const ref of d.removed) lines.push(removed(p, ref));
    for (const c of d.changed) lines.push(changed(p, c.ref, c.fields));
  }
  return lines.join('\n');
}

/** A dry run's field-level changes per section (`carta push --dry-run`); empty when nothing would change. */
export function dryRunChangesText(result: SyncCatalogResult, p: Palette): string {
  const lines: string[] = [];
  for (const s of SECTIONS) {
    const changes = result[s].changes;
    if (changes.length === 0) continue;
    lines.push(`${s} that would change:`);
    for (const c of changes)
      lines.push(c.action === 'created' ? `${added(p, c.externalId)} ${p.dim('(new)')}` : changed(p, c.externalId, c.fields));
  }
  return lines.join('\n');
}
