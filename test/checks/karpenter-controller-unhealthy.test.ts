// karpenter-controller-unhealthy on examples/karpenter: quiet on the healthy example, and one object changed at a time
// makes it fire (an OOM-killed crash loop, a NodePool whose registrations fail, a lost lease in the log); a NodeClassReady
// the nodeclass check already reports is not repeated; no Deployment in the input is "not evaluated".
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
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

function run(change: (r: RawInputs) => void = () => {}) {
  const r = structuredClone(example);
  change(r);
  const a = new Analysis(r, { now: NOW, staticInstanceTypes: STATIC_TYPES, podScope: isPendingCandidate });
  return runChecks(CHECKS, a, 'scale-down-blockers');
}
const fired = (change?: (r: RawInputs) => void) => run(change).findings.filter((f) => f.checkId === 'karpenter-controller-unhealthy');
const karpenterPods = (r: RawInputs) => r.pods.filter((p) => p.metadata.name?.startsWith('karpenter-'));

describe('karpenter-controller-unhealthy', () => {
  it('stays quiet on the example: two Running pods, and the gpu pool\'s NodeClassReady=False is the nodeclass check\'s', () => {
    expect(fired()).toEqual([]);
  });

  it('fires for a controller pod in an OOM-killed crash loop, naming the restarts and the exit', () => {
    const f = fired((r) => {
      const p = karpenterPods(r)[0];
      p.status = {
        ...p.status,
        containerStatuses: [
          {
            name: 'controller',
            ready: false,
            restartCount: 14,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: '2026-11-24T13:58:00Z' } },
          },
        ],
      } as never;
    });
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe('error');
    expect(f[0].message).toBe(
      `Karpenter pod karpenter/${karpenterPods(example)[0].metadata.name} is crash-looping (CrashLoopBackOff, 14 restarts, last terminated: OOMKilled, exit code 137 at 2026-11-24T13:58:00Z): while it is down nothing is launched or consolidated.`,
    );
  });

  it('fires for a NodePool whose NodeRegistrationHealthy is False, with the reason and message', () => {
    const f = fired((r) => {
      const np = r.nodePools.find((x) => x.metadata.name === 'batch')!;
      np.status = {
        ...np.status,
        conditions: (np.status?.conditions ?? []).map((c) =>
          c.type === 'NodeRegistrationHealthy' ? { ...c, status: 'False', reason: 'LaunchFailed', message: 'InsufficientInstanceCapacity', lastTransitionTime: '2026-11-24T13:30:00Z' } : c,
        ),
      };
    });
    expect(f.map((x) => [x.subject.name, x.severity, x.message])).toEqual([
      ['batch', 'warning', "NodePool batch: NodeRegistrationHealthy=False (LaunchFailed: InsufficientInstanceCapacity) since 2026-11-24T13:30:00Z: the pool's recent NodeClaims failed to launch or register."],
    ]);
  });

  it('fires when the log shows a pod lost the lease and none acquired it after', () => {
    const line = (time: string, message: string) => JSON.stringify({ level: 'INFO', time, logger: 'controller', message });
    const withLog = (lines: string[]) => (r: RawInputs) => {
      r.karpenterLogs = [parseKarpenterLogText(`${lines.join('\n')}\n`, { kind: 'pod', namespace: 'karpenter', pod: 'karpenter-2xplctnxjf-jr4zw' })];
    };
    const lost = line('2026-11-24T13:40:00Z', 'failed to renew lease kube-system/karpenter-leader-election: context deadline exceeded');
    const f = fired(withLog([line('2026-11-24T13:00:00Z', 'successfully acquired lease kube-system/karpenter-leader-election'), lost]));
    expect(f.map((x) => x.message)).toEqual([
      'Karpenter pod karpenter/karpenter-2xplctnxjf-jr4zw lost the leader lease (failed to renew lease kube-system/karpenter-leader-election: context deadline exceeded at 2026-11-24T13:40:00Z, and no Karpenter pod logged acquiring the lease after it): only the leader launches and disrupts.',
    ]);
    expect(f[0].subject).toEqual({ kind: 'Pod', name: 'karpenter-2xplctnxjf-jr4zw', namespace: 'karpenter' });
    expect(fired(withLog([lost, line('2026-11-24T13:41:00Z', 'successfully acquired lease kube-system/karpenter-leader-election')]))).toEqual([]);
  });

  it('is not evaluated, saying why, when the controller Deployment is not in the input', () => {
    const res = run((r) => {
      r.deployments = r.deployments.filter((d) => d.metadata.name !== 'karpenter');
    });
    const s = res.skipped.find((x) => x.checkId === 'karpenter-controller-unhealthy');
    expect(s?.reason).toBe('not-provided');
    expect(s?.detail).toContain('EKS Auto Mode');
  });
});
