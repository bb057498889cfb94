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

export function severityMark(s: Severity, style: Style): string {
  return s === 'error' ? style.red('✖') : s === 'warning' ? style.yellow('▲') : style.cyan('ℹ');
}
