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

// SGR colours and OSC 8 links take no columns on screen
const ESCAPES = /\u001b\[[0-9;]*m|\u001b\]8;;[^\u0007]*\u0007/g;

/** Columns a cell takes on screen: escapes take none; one column per code point (the reports print no wide characters). */
export function visibleWidth(s: string): number {
  let n = 0;
  for (const _ of s.replace(ESCAPES, '')) n++;
  return n;
}

/** The longest word of a cell: what wrapping can never make narrower, since an identifier is never cut. */
function longestWord(s: string): number {
  return Math.max(0, ...s.split(' ').map(visibleWidth));
}

/**
 * Word-wraps one line at spaces into lines of at most `width` columns, continuation lines indented by `hang` spaces.
 * A word wider than the line is kept whole (it overflows): names, tag keys and taints a user copies are never cut.
 */
export function wrapWords(line: string, width: number, hang = 0): string[] {
  if (visibleWidth(line) <= width) return [line];
  const lead = /^ */.exec(line)![0];
  const words = line.slice(lead.length).split(' ');
  const out: string[] = [];
  let cur = lead;
  let curWidth = lead.length;
  let first = true;
  for (const w of words) {
    const ww = visibleWidth(w);
    const atStart = curWidth === (first ? lead.length : hang);
    if (!atStart && curWidth + 1 + ww > width) {
      out.push(cur);
      cur = ' '.repeat(hang) + w;
      curWidth = hang + ww;
      first = false;
      continue;
    }
    cur += atStart ? w : ` ${w}`;
    curWidth += atStart ? ww : 1 + ww;
  }
  out.push(cur);
  return out;
}

const COMMAND_LINE = /^\s*(\$ )?(aws|kubectl|casdoctor|kubectl-casdoctor|eksctl|helm) /;
/** A report's header line: `casdoctor why-pending · CA v1.32.1 (…) · now … · from …` (a title, not a command). */
const HEADER_LINE = /^casdoctor [a-z-]+ · /;

/**
 * A header line fitted to the terminal: broken between its ` · ` facts, each continuation line starting `  · `; a fact
 * still wider breaks at its spaces, and a word wider than the terminal (a discovery tag list) stays whole, to copy.
 */
export function wrapHeader(line: string, width: number): string[] {
  if (visibleWidth(line) <= width) return [line];
  const facts = line.split(' · ');
  const out: string[] = [];
  let cur = facts[0];
  for (const f of facts.slice(1)) {
    if (visibleWidth(cur) + 3 + visibleWidth(f) <= width) cur += ` · ${f}`;
    else {
      out.push(cur);
      cur = `  · ${f}`;
    }
  }
  out.push(cur);
  // a fact still too wide breaks at its own spaces (`discovery` above its tag list), the tag list itself whole
  return out.flatMap((l) => wrapWords(l, width, 4));
}

/**
 * Wraps every line of a block of prose to the terminal width, at spaces. A continuation line lines up after a line's
 * label ("  scheduler  0/11 nodes ..." continues under "0/11"), else two spaces deeper than the line itself.
 */
export function wrapProse(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (visibleWidth(line) <= width) return [line];
      const plain = line.replace(ESCAPES, '');
      if (HEADER_LINE.test(plain)) return wrapHeader(line, width);
      // a command to copy and paste stays on one line: split, its first line would run alone
      if (COMMAND_LINE.test(plain)) return [line];
      const label = /^( *)(?:[^ ]+(?: [^ ]+)?)( {2,})/.exec(plain);
      const lead = /^ */.exec(plain)![0].length;
      const hang = label && label[0].length <= width / 3 ? label[0].length : lead + 2;
      return wrapWords(line, width, hang);
    })
    .join('\n');
}

/**
 * A borderless table laid out for a terminal `width` columns wide. Columns are as wide as their content; when the
 * table is too wide, the last column moves to its own line(s) under each row (labelled by its heading), then the
 * widest columns wrap at spaces down to their longest word. Nothing is cut mid-word: names, tag keys and taints a
 * user copies stay whole (a single word wider than the terminal overflows).
 */
export function fitTable(head: string[], rows: string[][], width: number): string {
  const all = [head, ...rows];
  const natural = head.map((_, i) => Math.max(...all.map((r) => visibleWidth(r[i] ?? ''))));
  const least = head.map((_, i) => Math.max(...all.map((r) => longestWord(r[i] ?? ''))));
  const total = (ws: number[]) => 2 + ws.reduce((a, w) => a + w, 0) + 2 * (ws.length - 1);
  const last = head.length - 1;
  let widths = [...natural];
  let under = false;
  if (total(widths) > width) {
    // the last column wrapped beside the others, if its longest word fits there
    const room = width - total(widths.slice(0, last)) - 2;
    if (room >= least[last]) widths[last] = room;
    else {
      under = true;
      widths = widths.slice(0, last);
    }
  }
  // still too wide: narrow the column with the most room to give, one column at a time, never below its longest word
  while (total(widths) > width) {
    let pick = -1;
    for (let i = 0; i < widths.length; i++) if (widths[i] > least[i] && (pick < 0 || widths[i] - least[i] > widths[pick] - least[pick])) pick = i;
    if (pick < 0) break;
    widths[pick] = Math.max(least[pick], widths[pick] - (total(widths) - width));
  }
  const pad = (cell: string, w: number) => cell + ' '.repeat(Math.max(0, w - visibleWidth(cell)));
  const lines: string[] = [];
  const label = head[last].toLowerCase();
  for (const [n, r] of all.entries()) {
    const cells = widths.map((w, i) => wrapWords(r[i] ?? '', w));
    const height = Math.max(...cells.map((c) => c.length));
    for (let k = 0; k < height; k++) lines.push(`  ${cells.map((c, i) => pad(c[k] ?? '', widths[i])).join('  ')}`.trimEnd());
    if (under && n > 0 && (r[last] ?? '') !== '' && r[last] !== '-') lines.push(...wrapWords(`      ${label}: ${r[last]}`, width, 8));
  }
  return lines.join('\n');
}
