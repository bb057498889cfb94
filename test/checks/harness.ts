import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
import type { Finding } from '../../src/model/findings.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import type { StaticInstanceTypeData } from '../../src/simulate/instance-types.js';
import { analyzePods, type PodAnalysis } from '../../src/simulate/why-pending.js';
import { isPendingCandidate } from '../../src/model/k8s.js';
import { NOW } from '../builders/world.js';

export const STATIC_TYPES = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'data', 'instance-types.json'), 'utf8'),
) as StaticInstanceTypeData;

export function analyze(raw: RawInputs, opts: { caArgs?: string[]; now?: Date } = {}) {
  const analysis = new Analysis(raw, {
    now: opts.now ?? NOW,
    caArgs: opts.caArgs,
    staticInstanceTypes: STATIC_TYPES,
    podScope: isPendingCandidate,
  });
  const pods = analyzePods(analysis);
  const { findings, skipped } = runChecks(CHECKS, analysis, 'why-pending');
  return { analysis, pods, findings, skipped };
}

export function findingsOf(
  raw: RawInputs,
  checkId: string,
  opts?: { caArgs?: string[]; now?: Date },
): Finding[] {
  return analyze(raw, opts).findings.filter((f) => f.checkId === checkId);
}

export function podVerdicts(pods: PodAnalysis[]): Record<string, string> {
  return Object.fromEntries(pods.map((p) => [`${p.report.namespace}/${p.report.name}`, p.report.verdict]));
}
