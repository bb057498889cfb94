// The borderless table the text reports share: no rules, two spaces of indent, two between columns.
import Table from 'cli-table3';

const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '  ',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
};

/** A borderless table; `wrapLast` word-wraps the last column at that width (a terminal), else nothing wraps (pipes). */
export function plainTable(head: string[], rows: string[][], wrapLast?: number): string {
  if (!wrapLast && isPrintableAscii(head) && rows.every(isPrintableAscii)) return padColumns(head, rows);
  const table = new Table({
    head,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2, compact: true },
    chars: NO_BORDERS,
    ...(wrapLast
      ? { colWidths: [...head.slice(0, -1).map(() => null), wrapLast] as never, wordWrap: true }
      : {}),
  });
  for (const r of rows) table.push(r);
  // cli-table3 pads the last column; trailing blanks only make pipes and diffs noisy
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

// Printable ASCII has the width of its length: such tables are laid out here, byte for byte as cli-table3 would, without
// its per-cell ANSI and Unicode width scans (most of `why-pending --all` at 5,000 nodes: 90,000 rows, seconds).
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function isPrintableAscii(row: string[]): boolean {
  return row.every((c) => typeof c === 'string' && PRINTABLE_ASCII.test(c));
}

function padColumns(head: string[], rows: string[][]): string {
  const all = [head, ...rows];
  const widths: number[] = [];
  for (const r of all) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length + 2)));
  return all.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i])).join('')}`.trimEnd()).join('\n');
}
