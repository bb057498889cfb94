/**
 * Karpenter's own health, before any verdict that depends on it: the controller's pods (missing, crash-looping,
 * OOM-killed, not Ready, restarting — the same reading as CA's pods, simulate/ca-health.ts), the leader election its
 * log shows, and the NodePool conditions that make Karpenter skip a pool (pkg/apis/v1/nodepool_status.go). Pure.
 */
import type { Deployment, Pod } from '../../../model/k8s.js';
import type { NodePool } from '../../../model/karpenter.js';
import { caPodProblems, caPodsHealth, type CaPodProblemKind } from '../../ca-health.js';
import type { KarpenterLeaderState, KarpenterLogIndex } from './log-beside.js';
import { findKarpenterDeployment } from './settings.js';

export type KarpenterHealthKind = CaPodProblemKind | 'leader-lost' | 'nodepool-condition';

export interface KarpenterHealthProblem {
  kind: KarpenterHealthKind;
  severity: 'error' | 'warning';
  subject: { kind: 'Deployment' | 'Pod' | 'NodePool'; name: string; namespace?: string };
  /** One line with the values ("CrashLoopBackOff, 14 restarts, last terminated: OOMKilled …", "NodeRegistrationHealthy=False (…)"). */
  detail: string;
  /** nodepool-condition: the condition type. */
  condition?: string;
}

export interface KarpenterHealth {
  /** The controller Deployment, when it is in the input. */
  controller?: { namespace: string; name: string; container: string };
  problems: KarpenterHealthProblem[];
  /** The pod whose log last says it acquired the lease, when a log was read. */
  leader?: KarpenterLeaderState;
  /** What could not be evaluated, and how to supply it. */
  notEvaluated: string[];
}

/** What each condition False means, and how bad (nodepool_status.go; provisioner.go:281 skips a pool that is not Ready). */
const CONDITIONS: ReadonlyArray<{ type: string; severity: 'error' | 'warning'; means: string }> = [
  { type: 'ValidationSucceeded', severity: 'error', means: 'Karpenter ignores the NodePool: it launches nothing from it' },
  { type: 'NodeClassReady', severity: 'error', means: 'Karpenter ignores the NodePool until its NodeClass is Ready' },
  // v1.7+: set False when launches or registrations of the pool's NodeClaims keep failing (nodepool/registrationhealth)
  { type: 'NodeRegistrationHealthy', severity: 'warning', means: "the pool's recent NodeClaims failed to launch or register" },
];

export function karpenterHealth(input: {
  deployments: readonly Deployment[];
  pods: readonly Pod[];
  nodePools: readonly NodePool[];
  log?: KarpenterLogIndex;
}): KarpenterHealth {
  const problems: KarpenterHealthProblem[] = [];
  const notEvaluated: string[] = [];
  const found = findKarpenterDeployment(input.deployments);
  let controller: KarpenterHealth['controller'];
  if (found) {
    const namespace = found.deployment.metadata.namespace ?? 'default';
    const name = found.deployment.metadata.name ?? 'karpenter';
    controller = { namespace, name, container: found.container.name };
    const h = caPodsHealth({ found: true, deployment: { namespace, name, container: found.container.name } }, [found.deployment], [...input.pods]);
    if (!h.deploymentFound) notEvaluated.push(`Deployment ${namespace}/${name} has no selector in the input, so its pods cannot be told apart`);
    for (const p of caPodProblems(h)) {
      problems.push({
        kind: p.kind,
        severity: p.kind === 'restarting' ? 'warning' : 'error',
        subject: p.pod ? { kind: 'Pod', name: p.pod.name, namespace: p.pod.namespace } : { kind: 'Deployment', name, namespace },
        detail: p.detail,
      });
    }
  } else {
    notEvaluated.push("Karpenter's controller Deployment is not in the input (EKS Auto Mode runs it outside the cluster; else add `kubectl get deploy -A -o json`)");
  }

  // the leader: a pod whose last leader-election line is "failed to renew lease", with no pod acquiring it after
  let leader: KarpenterLeaderState | undefined;
  if (input.log) {
    const latest = [...input.log.leaders].sort((a, b) => b.at - a.at);
    leader = latest.find((l) => l.state === 'leader');
    const lost = latest.find((l) => l.state === 'lost');
    if (lost && (!leader || leader.at < lost.at)) {
      const pod = /^pod ([^/]+)\/(.+)$/.exec(lost.where);
      problems.push({
        kind: 'leader-lost',
        severity: 'error',
        subject: pod ? { kind: 'Pod', name: pod[2], namespace: pod[1] } : { kind: 'Deployment', name: controller?.name ?? 'karpenter', namespace: controller?.namespace ?? 'kube-system' },
        detail: `${lost.text} at ${new Date(lost.at).toISOString().replace('.000Z', 'Z')}, and no Karpenter pod logged acquiring the lease after it`,
      });
    }
  } else if (found) {
    notEvaluated.push("which pod leads: Karpenter's log is not in the input (`kubectl -n kube-system logs deploy/karpenter --since=1h > karpenter.log`)");
  }

  for (const np of input.nodePools) {
    for (const c of CONDITIONS) {
      const cond = np.status?.conditions?.find((x) => x.type === c.type);
      if (cond?.status !== 'False') continue;
      problems.push({
        kind: 'nodepool-condition',
        severity: c.severity,
        subject: { kind: 'NodePool', name: np.metadata.name ?? '' },
        condition: c.type,
        detail: `${c.type}=False${cond.reason ? ` (${cond.reason}${cond.message ? `: ${cond.message}` : ''})` : cond.message ? ` (${cond.message})` : ''}${cond.lastTransitionTime ? ` since ${cond.lastTransitionTime}` : ''}: ${c.means}`,
      });
    }
  }
  return { ...(controller ? { controller } : {}), problems, ...(leader ? { leader } : {}), notEvaluated };
}
