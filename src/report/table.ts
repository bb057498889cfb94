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
