import type { Check } from '../define-check.js';

/** The README's table of checks (between <!-- checks:start --> and <!-- checks:end -->). */
export function renderChecksTable(checks: readonly Check[]): string {
  const rows = checks.map(
    (c) =>
      `| [\`${c.meta.id}\`](docs/checks/${c.meta.id}.md) | ${c.meta.severity} | ${c.meta.commands.join(', ')} | ${c.meta.summary.replaceAll('|', '\\|')} |`,
  );
  return ['| check | severity | command | what it finds |', '|---|---|---|---|', ...rows, ''].join('\n');
}
