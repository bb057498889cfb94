// Is CA working at all? Read from CA's own pods (Ready, restarts, last termination) and the nodes' kubelet versions.
// Pure: the log- and metrics-based signals are added by ca-record.ts from the parsed record.
import type { Deployment, Pod } from '../model/k8s.js';
import type { CaConfig } from '../model/ca-config.js';
import { compileLabelSelector } from './predicates/labels.js';

export interface CaContainerState {
  name: string;
  ready?: boolean;
  restartCount: number;
  /** state.waiting.reason: CrashLoopBackOff, ImagePullBackOff, CreateContainerConfigError, ... */
  waitingReason?: string;
  waitingMessage?: string;
  runningSince?: string;
  /** lastState.terminated, or state.terminated when the container is down now. */
  lastTermination?: { reason?: string; exitCode?: number; finishedAt?: string; message?: string };
}

export interface CaPodHealth {
  namespace: string;
  name: string;
  phase?: string;
  nodeName?: string;
  /** The pod's Ready condition; undefined when the dump does not carry it. */
  ready?: boolean;
  /** The CA container (by the Deployment's container name), when the pod reports it. */
  container?: CaContainerState;
}

export interface CaPodsHealth {
  /** false when no CA Deployment was found: nothing to say. */
  deploymentFound: boolean;
  replicas?: number;
  pods: CaPodHealth[];
  /** Whether pod status was in the input at all (a manifest-only input has none). */
  statusKnown: boolean;
}

interface RawContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string; message?: string };
    running?: { startedAt?: string };
    terminated?: { reason?: string; exitCode?: number; finishedAt?: string; message?: string };
  };
  lastState?: { terminated?: { reason?: string; exitCode?: number; finishedAt?: string; message?: string } };
}

/** The pods of CA's Deployment, matched by its selector in its namespace. */
export function caPodsOf(deployment: Deployment | undefined, pods: Pod[]): Pod[] {
  if (!deployment) return [];
  const ns = deployment.metadata.namespace ?? 'default';
  const selector = deployment.spec?.selector;
  if (!selector || (!selector.matchLabels && !selector.matchExpressions)) return [];
  const sel = compileLabelSelector(selector);
  return pods
    .filter((p) => (p.metadata.namespace ?? 'default') === ns && sel.matches(p.metadata.labels))
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

function containerState(raw: RawContainerStatus): CaContainerState {
  const terminated = raw.state?.terminated ?? raw.lastState?.terminated;
  return {
    name: raw.name ?? '',
    ...(raw.ready !== undefined ? { ready: raw.ready } : {}),
    restartCount: typeof raw.restartCount === 'number' ? raw.restartCount : 0,
    ...(raw.state?.waiting?.reason ? { waitingReason: raw.state.waiting.reason } : {}),
    ...(raw.state?.waiting?.message ? { waitingMessage: raw.state.waiting.message } : {}),
    ...(raw.state?.running?.startedAt ? { runningSince: raw.state.running.startedAt } : {}),
    ...(terminated
      ? {
          lastTermination: {
            ...(terminated.reason ? { reason: terminated.reason } : {}),
            ...(typeof terminated.exitCode === 'number' ? { exitCode: terminated.exitCode } : {}),
            ...(terminated.finishedAt ? { finishedAt: terminated.finishedAt } : {}),
            ...(terminated.message ? { message: terminated.message } : {}),
          },
        }
      : {}),
  };
}

export function caPodsHealth(ca: Pick<CaConfig, 'found' | 'deployment'>, deployments: Deployment[], pods: Pod[]): CaPodsHealth {
  const dep = deployments.find(
    (d) => d.metadata.namespace === ca.deployment?.namespace && d.metadata.name === ca.deployment?.name,
  );
  if (!ca.found || !dep) return { deploymentFound: false, pods: [], statusKnown: false };
  // without a selector (a dump that dropped it) CA's pods cannot be told apart: unknown, never "no pod"
  const sel = dep.spec?.selector;
  if (!sel || (!sel.matchLabels && !sel.matchExpressions)) return { deploymentFound: false, pods: [], statusKnown: false };
  const caPods = caPodsOf(dep, pods);
  const out: CaPodHealth[] = caPods.map((p) => {
    const statuses = (p.status?.containerStatuses ?? []) as RawContainerStatus[];
    const mine = statuses.find((s) => s.name === ca.deployment?.container) ?? (statuses.length === 1 ? statuses[0] : undefined);
    const readyCond = p.status?.conditions?.find((c) => c.type === 'Ready');
    return {
      namespace: p.metadata.namespace ?? 'default',
      name: p.metadata.name ?? '',
      ...(p.status?.phase ? { phase: p.status.phase } : {}),
      ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
      ...(readyCond ? { ready: readyCond.status === 'True' } : {}),
      ...(mine ? { container: containerState(mine) } : {}),
    };
  });
  const replicas = typeof dep.spec?.replicas === 'number' ? dep.spec.replicas : undefined;
  return {
    deploymentFound: true,
    ...(replicas !== undefined ? { replicas } : {}),
    pods: out,
    statusKnown: caPods.some((p) => p.status !== undefined && Object.keys(p.status).length > 0),
  };
}

export type CaPodProblemKind = 'scaled-to-zero' | 'no-pod' | 'crash-loop' | 'oom-killed' | 'not-ready' | 'restarting';

export interface CaPodProblem {
  kind: CaPodProblemKind;
  pod?: CaPodHealth;
  /** One line with the values: "CrashLoopBackOff, 14 restarts, last exit 137 (OOMKilled) at …". */
  detail: string;
}

/** Restarts that say "CA keeps dying" rather than "CA was restarted once by a node drain". */
const RESTARTS_WORTH_SAYING = 3;

function terminationText(t: CaContainerState['lastTermination']): string {
  if (!t) return '';
  const parts = [t.reason, t.exitCode !== undefined ? `exit code ${t.exitCode}` : undefined].filter(Boolean);
  return `last terminated: ${parts.join(', ')}${t.finishedAt ? ` at ${t.finishedAt}` : ''}`;
}

/** What is wrong with CA's pods, worst first per pod. A pod whose status is unknown yields nothing. */
export function caPodProblems(h: CaPodsHealth): CaPodProblem[] {
  if (!h.deploymentFound) return [];
  if (h.replicas === 0) return [{ kind: 'scaled-to-zero', detail: 'the Deployment has replicas: 0' }];
  if (h.pods.length === 0) {
    return h.statusKnown || h.replicas !== undefined
      ? [{ kind: 'no-pod', detail: 'no pod of the Deployment exists' }]
      : [];
  }
  // CA runs leader-elected: one healthy replica is enough
  const healthy = h.pods.some(
    (p) => p.phase === 'Running' && p.ready !== false && !p.container?.waitingReason && p.container?.ready !== false,
  );
  const out: CaPodProblem[] = [];
  for (const p of h.pods) {
    const c = p.container;
    const term = terminationText(c?.lastTermination);
    const restarts = c ? `${c.restartCount} restart${c.restartCount === 1 ? '' : 's'}` : '';
    const tail = [restarts, term].filter(Boolean).join(', ');
    if (c?.waitingReason === 'CrashLoopBackOff') {
      out.push({ kind: 'crash-loop', pod: p, detail: `CrashLoopBackOff${tail ? `, ${tail}` : ''}` });
    } else if (c?.lastTermination?.reason === 'OOMKilled' && c.restartCount > 0) {
      out.push({ kind: 'oom-killed', pod: p, detail: tail });
    } else if (!healthy && (p.ready === false || c?.ready === false || c?.waitingReason || (p.phase && p.phase !== 'Running'))) {
      const why = c?.waitingReason ?? (p.phase && p.phase !== 'Running' ? `phase ${p.phase}` : 'not Ready');
      out.push({ kind: 'not-ready', pod: p, detail: [why, tail].filter(Boolean).join(', ') });
    } else if (c && c.restartCount >= RESTARTS_WORTH_SAYING && c.lastTermination) {
      out.push({ kind: 'restarting', pod: p, detail: tail });
    }
  }
  return out;
}

/** CA's minor version against the cluster's (the newest kubelet minor: the control plane is not in the snapshot). */
export function versionSkew(caMinor: number | undefined, kubeletVersions: string[]): { caMinor: number; clusterMinor: number } | undefined {
  if (caMinor === undefined) return undefined;
  let clusterMinor: number | undefined;
  for (const v of kubeletVersions) {
    const m = /^v?1\.(\d+)\./.exec(v);
    if (m) clusterMinor = Math.max(clusterMinor ?? 0, Number(m[1]));
  }
  if (clusterMinor === undefined) return undefined;
  return { caMinor, clusterMinor };
}
