// "Is CA working at all?" from the findings of the CA-health checks: every command reports it first, and per-pod
// explanations say CA is not running instead of promising a scale-up.
import type { Finding } from './findings.js';

/** The checks that answer "is CA running its loop", worst first. */
export const CA_HEALTH_CHECKS = [
  'ca-deployment-not-found',
  'ca-pod-unhealthy',
  'externalgrpc-ca-cannot-run',
  'ca-loop-failing',
  'ca-loop-stalled',
  'ca-config-invalid',
  'ca-provider-id-unrecognized',
  'ca-status-stale',
  'ca-version-skew',
] as const;

export interface CaHealth {
  /** false: an error-level health finding says CA scales nothing now; null: nothing says it is broken. */
  running: boolean | null;
  /** The health findings, in CA_HEALTH_CHECKS order. */
  findings: Finding[];
  /** One line for per-pod explanations when CA is not running. */
  caveat?: string;
}

export function caHealthFrom(findings: readonly Finding[]): CaHealth {
  const order = new Map<string, number>(CA_HEALTH_CHECKS.map((id, i) => [id, i]));
  const health = findings
    .filter((f) => order.has(f.checkId))
    .sort((a, b) => order.get(a.checkId)! - order.get(b.checkId)!);
  // ca-deployment-not-found is an error on a cluster that has no CA at all: that is "nobody scales", said elsewhere
  // externalgrpc-ca-cannot-run also reports a CA that runs its loop but whose scale-ups all fail or never land
  const runsLoop = (f: Finding) => f.checkId === 'externalgrpc-ca-cannot-run' && !/^CA is (likely )?not running/.test(f.message);
  const stopping = health.filter((f) => f.severity === 'error' && f.checkId !== 'ca-deployment-not-found' && f.checkId !== 'ca-config-invalid' && !runsLoop(f));
  if (stopping.length === 0) return { running: null, findings: health };
  return {
    running: false,
    findings: health,
    caveat: `but CA is not running its loop now (${stopping[0].checkId}: ${stopping[0].message.replace(/\.$/, '')})`,
  };
}
