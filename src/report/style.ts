// Colors for terminals only; renderers get a Style so they stay pure and testable.
import type { Severity } from '../model/findings.js';

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
}

const id = (s: string) => s;
export const PLAIN: Style = { bold: id, dim: id, red: id, yellow: id, green: id, cyan: id };

export async function terminalStyle(color: boolean): Promise<Style> {
  if (!color) return PLAIN;
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  return { bold: c.bold, dim: c.dim, red: c.red, yellow: c.yellow, green: c.green, cyan: c.cyan };
}

/**
 * Whether to colour stdout: `--color=always` (or FORCE_COLOR, for `less -R`) colours a pipe too, `--color=never`,
 * `--no-color` and NO_COLOR never colour; by default (auto) only a terminal gets colours.
 */
export function wantsColor(o: { color: boolean; colorMode?: ColorMode }, deps: { stdoutIsTTY: boolean }): boolean {
  if (!o.color) return false;
  return o.colorMode === 'always' || deps.stdoutIsTTY;
}

export type ColorMode = 'always' | 'never' | 'auto';

/**
 * The colour mode from the flags and the environment: an explicit --color/--no-color first, then NO_COLOR (any
 * non-empty value), then FORCE_COLOR (0 or false turn colours off, any other value on, as chalk and Node read it).
 */
export function colorMode(flag: string | boolean | undefined, env: NodeJS.ProcessEnv): ColorMode {
  if (flag === false || flag === 'never') return 'never';
  if (flag === true || flag === 'always') return 'always';
  if (flag === 'auto') return 'auto';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 'never';
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false' ? 'never' : 'always';
  return 'auto';
}

export function severityMark(s: Severity, style: Style): string {
  return s === 'error' ? style.red('✖') : s === 'warning' ? style.yellow('▲') : style.cyan('ℹ');
}

/**
 * Whether the terminal renders OSC 8 hyperlinks. There is no query for it; these are the terminals known to, plus
 * FORCE_HYPERLINK=1 / 0 to decide by hand.
 */
export function supportsHyperlinks(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_HYPERLINK !== undefined) return env.FORCE_HYPERLINK !== '0';
  if (env.CI || env.TERM === 'dumb') return false;
  if (env.WT_SESSION || env.KITTY_WINDOW_ID || env.WEZTERM_PANE || env.DOMTERM) return true;
  if (['iTerm.app', 'WezTerm', 'vscode', 'ghostty', 'Hyper', 'Tabby'].includes(env.TERM_PROGRAM ?? '')) return true;
  return Number(env.VTE_VERSION ?? 0) >= 5000;
}

/** An OSC 8 hyperlink: the terminal shows `text` and opens `url` on click. */
export function hyperlink(text: string, url: string): string {
  return `\u001b]8;;${url}\u0007${text}\u001b]8;;\u0007`;
}
