// "Is CA running?" comes first in every text report: the CA-health findings in one section at the top.
import { CA_HEALTH_CHECKS, caHealthFrom } from '../model/ca-health.js';
import type { Finding } from '../model/findings.js';
import { findingBlock, indent } from './findings-text.js';
import type { Style } from './style.js';

const HEALTH = new Set<string>(CA_HEALTH_CHECKS);

export function isCaHealthFinding(f: Finding): boolean {
  return HEALTH.has(f.checkId);
}

/** The section, or nothing when no CA-health check found anything. */
export function caHealthSection(findings: readonly Finding[], s: Style, o: { links?: boolean } = {}): string[] {
  const h = caHealthFrom(findings);
  if (h.findings.length === 0) return [];
  const title =
    h.running === false
      ? s.red(s.bold('CA health: CA is not scaling now — the explanations below say what CA would do once it runs again'))
      : s.bold('CA health');
  return [title, ...h.findings.map((f) => indent(findingBlock(f, s, { links: o.links }), '  '))];
}
