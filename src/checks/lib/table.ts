import { checkAutoscaler, type Check } from '../define-check.js';
import { providerById } from '../../providers/index.js';

/** Which autoscaler (and CA cloud provider) a check is about: "Karpenter", "CA (AWS)", "CA (externalgrpc)", or "CA". */
function autoscalerOf(c: Check): string {
  if (checkAutoscaler(c.meta) === 'karpenter') return 'Karpenter';
  const providers = c.meta.providers ?? [];
  if (providers.length === 0) return 'CA';
  return `CA (${providers.map((p) => providerById(p)?.words.title ?? p).join(', ')})`;
}

/** The catalogue of checks in docs/checks.md (between <!-- checks:start --> and <!-- checks:end -->). */
export function renderChecksTable(checks: readonly Check[]): string {
  const rows = checks.map(
    (c) =>
      `| [\`${c.meta.id}\`](checks/${c.meta.id}.md) | ${c.meta.severity} | ${autoscalerOf(c)} | ${c.meta.commands.join(', ')} | ${c.meta.summary.replaceAll('|', '\\|')} |`,
  );
  return ['| check | severity | autoscaler | command | what it finds |', '|---|---|---|---|---|', ...rows, ''].join('\n');
}
