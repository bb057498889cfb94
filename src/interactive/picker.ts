// A small searchable picker for terminals: type to filter, ↑/↓ to move, Enter to choose, Esc or Ctrl-C to cancel.
// Raw-mode stdin and ANSI redraws on the given output stream; nothing here runs off a TTY.
import { emitKeypressEvents } from 'node:readline';
import { safeText } from '../report/sanitize.js';

export interface PickItem<T> {
  label: string;
  detail?: string;
  value: T;
}

export interface PickerIo {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

const CLEAR_LINE = '\x1b[2K';
const UP = (n: number) => (n > 0 ? `\x1b[${n}A` : '');

export function filterItems<T>(items: PickItem<T>[], query: string): PickItem<T>[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return items.filter((i) => {
    const hay = `${i.label} ${i.detail ?? ''}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** Resolves with the chosen item's value, or undefined when cancelled. */
export function pick<T>(title: string, items: PickItem<T>[], io: PickerIo): Promise<T | undefined> {
  const { input, output } = io;
  return new Promise((resolve) => {
    let query = '';
    let cursor = 0;
    let drawn = 0;
    const rows = Math.max(5, (output.rows ?? 24) - 4);
    // a pty may report 0 columns: draw as if it had a usable width
    const width = Math.max(20, output.columns || 100);
    const draw = () => {
      const shown = filterItems(items, query);
      cursor = Math.min(cursor, Math.max(0, shown.length - 1));
      const start = Math.max(0, Math.min(cursor - Math.floor(rows / 2), shown.length - rows));
      // labels and details are pod names, events and the like: foreign text, made safe before it reaches the terminal
      const lines = [
        `${safeText(title)} (type to filter, ↑/↓, Enter to choose, Esc to cancel)`,
        `> ${safeText(query)}`,
        ...shown.slice(start, start + rows).map((item, i) => {
          const line = `${start + i === cursor ? '❯' : ' '} ${safeText(item.label)}${item.detail ? `  ${safeText(item.detail)}` : ''}`;
          return line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line;
        }),
        shown.length === 0 ? '  (nothing matches)' : `  ${shown.length} of ${items.length}`,
      ];
      let out = UP(drawn) + '\r';
      for (let i = 0; i < Math.max(lines.length, drawn); i++) out += `${CLEAR_LINE}${lines[i] ?? ''}\n`;
      const extra = Math.max(0, drawn - lines.length);
      out += UP(extra);
      drawn = lines.length;
      output.write(out);
      return shown;
    };
    const finish = (value: T | undefined) => {
      input.off('keypress', onKey);
      if (input.isTTY) input.setRawMode(false);
      input.pause();
      let out = UP(drawn) + '\r';
      for (let i = 0; i < drawn; i++) out += `${CLEAR_LINE}\n`;
      output.write(out + UP(drawn));
      resolve(value);
    };
    const onKey = (str: string | undefined, key: { name?: string; ctrl?: boolean; sequence?: string }) => {
      const shown = filterItems(items, query);
      if ((key.ctrl && key.name === 'c') || key.name === 'escape') return finish(undefined);
      if (key.name === 'return' || key.name === 'enter') return finish(shown[cursor]?.value);
      if (key.name === 'up') cursor = Math.max(0, cursor - 1);
      else if (key.name === 'down') cursor = Math.min(shown.length - 1, cursor + 1);
      else if (key.name === 'backspace') query = query.slice(0, -1);
      else if (str && !key.ctrl && str.length === 1 && str >= ' ') {
        query += str;
        cursor = 0;
      }
      draw();
    };
    emitKeypressEvents(input);
    if (input.isTTY) input.setRawMode(true);
    input.resume();
    input.on('keypress', onKey);
    draw();
  });
}
