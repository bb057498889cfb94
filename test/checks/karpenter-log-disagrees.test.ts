// karpenter-log-disagrees on examples/karpenter with a Karpenter log added: fires when Karpenter's latest line on a pod
// or node contradicts casdoctor's verdict, not when the line is old or agrees, and is skipped without a log.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
import type { CommandName } from '../../src/checks/define-check.js';
import { loadOffline } from '../../src/gather/offline.js';
import { parseKarpenterLogText } from '../../src/gather/history-files.js';
import { isPendingCandidate } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { STATIC_TYPES } from './harness.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'karpenter');
const NOW = new Date('2026-11-24T14:00:00Z');
let example: RawInputs;
beforeAll(async () => {
  example = await loadOffline([EXAMPLE]);
}, 60_000);

const rec = (time: string, message: string, values: Record<string, unknown> = {}, level = 'INFO') =>
  JSON.stringify({ level, time, logger: 'controller', message, commit: '4d1b7e9', ...values });

function withLog(lines: string[], change: (r: RawInputs) => void = () => {}): RawInputs {
  const r = structuredClone(example);
  r.karpenterLogs = [parseKarpenterLogText(`${lines.join('\n')}\n`, { kind: 'file', path: 'karpenter.log' })];
  change(r);
  return r;
}

function run(r: RawInputs, command: CommandName) {
  const a = new Analysis(r, { now: NOW, staticInstanceTypes: STATIC_TYPES, podScope: isPendingCandidate });
  return runChecks(CHECKS, a, command);
}
const fired = (r: RawInputs, command: CommandName) => run(r, command).findings.filter((f) => f.checkId === 'karpenter-log-disagrees');

const resizer = () => example.pods.find((p) => p.metadata.name?.startsWith('image-resizer-'))!;
const couldNot = (time: string) =>
  rec(time, 'could not schedule pod', { Pod: { name: resizer().metadata.name, namespace: 'web' }, error: 'incompatible with nodepool "general", no instance type satisfied resources' }, 'ERROR');
const disrupting = (time: string, node: string, claim: string) =>
  rec(time, 'disrupting node(s)', {
    command: `Underutilized/7f1c: delete: nodepools=[general]: [${node}] -> [] (savings: $0.12)`,
    decision: 'delete',
    'disrupted-nodes': [{ Node: { name: node }, NodeClaim: { name: claim } }],
    'replacement-nodes': [],
  });

describe('karpenter-log-disagrees', () => {
  it('fires when Karpenter logged it could not schedule a pod casdoctor finds NodePool general fits', () => {
    const f = fired(withLog([couldNot('2026-11-24T13:58:00Z')]), 'why-pending');
    expect(f).toHaveLength(1);
    expect(f[0].message).toBe(
      `Pod web/${resizer().metadata.name}: Karpenter logged "could not schedule pod: incompatible with nodepool "general", no instance type satisfied resources" at 2026-11-24T13:58:00Z, but casdoctor finds NodePool general fits it and Karpenter would launch a node.`,
    );
    expect(f[0].evidence[0].source).toBe('Karpenter log karpenter.log:1');
  });

  it('does not fire on a line more than 10 minutes older than the log\'s last line (Karpenter\'s view has moved on)', () => {
    const r = withLog([couldNot('2026-11-24T13:40:00Z'), rec('2026-11-24T13:59:00Z', 'found provisionable pod(s)', { Pods: 'web/other' })]);
    expect(fired(r, 'why-pending')).toEqual([]);
  });

  it('fires when Karpenter logged disrupting a node casdoctor finds blocked by a PDB, and not once the node is tainted for it', () => {
    const line = disrupting('2026-11-24T13:59:00Z', 'ip-10-20-11-203.ec2.internal', 'general-tq8vb');
    const f = fired(withLog([line]), 'scale-down-blockers');
    expect(f.map((x) => x.subject.name)).toEqual(['ip-10-20-11-203.ec2.internal']);
    expect(f[0].message).toMatch(/^Node ip-10-20-11-203\.ec2\.internal: Karpenter logged "disrupting node\(s\): underutilized, delete" at 2026-11-24T13:59:00Z, but casdoctor finds consolidation blocked: pdb prevents pod evictions/);
    const tainted = withLog([line], (r) => {
      const n = r.nodes.find((x) => x.metadata.name === 'ip-10-20-11-203.ec2.internal')!;
      n.spec = { ...n.spec, taints: [...(n.spec?.taints ?? []), { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] };
    });
    expect(fired(tainted, 'scale-down-blockers')).toEqual([]);
  });

  it('is skipped, saying how to supply the log, when the input has none', () => {
    const r = structuredClone(example);
    delete r.karpenterLogs;
    const res = run(r, 'why-pending');
    const s = res.skipped.find((x) => x.checkId === 'karpenter-log-disagrees');
    expect(s?.reason).toBe('not-provided');
    expect(s?.detail).toContain('kubectl -n kube-system logs deploy/karpenter --since=1h > karpenter.log');
  });
});
