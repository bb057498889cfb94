import Table from 'cli-table3';
import { describe, expect, it } from 'vitest';
import { plainTable } from '../../src/report/table.js';

/** cli-table3 with plainTable's settings: what the fast layout must reproduce byte for byte. */
function viaCliTable3(head: string[], rows: string[][]): string {
  const none = { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '' };
  const table = new Table({
    head,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2, compact: true },
    chars: {
      ...none,
      'bottom-left': '',
      'bottom-right': '',
      left: '  ',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  });
  for (const r of rows) table.push(r);
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

describe('plainTable', () => {
  it('lays out printable ASCII exactly as cli-table3 does', () => {
    // a seeded mix of widths, empty cells and spaces
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const word = () => 'abcdefghij klmnop/qrstu-vwxyz:0123456789()'.slice(0, rnd(30));
    for (let t = 0; t < 25; t++) {
      const cols = 1 + rnd(6);
      const head = Array.from({ length: cols }, (_, i) => `COL${i}`.slice(0, 1 + rnd(5)));
      const rows = Array.from({ length: rnd(12) }, () => Array.from({ length: cols }, word));
      expect(plainTable(head, rows)).toBe(viaCliTable3(head, rows));
    }
  });

  it('keeps cli-table3 for colors, wide characters and wrapping', () => {
    const head = ['NAME', 'REASON'];
    const rows = [
      ['\u001b[31mred\u001b[39m', 'Zürich ✓'],
      ['plain', '東京'],
    ];
    expect(plainTable(head, rows)).toBe(viaCliTable3(head, rows));
    expect(plainTable(head, [['a', 'one two three four five six']], 10)).toContain('\n');
  });
});
