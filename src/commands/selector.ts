import { InputError, UsageError } from '../model/errors.js';
import type { LabelSelectorRequirement } from '../model/k8s.js';

/** Parses kubectl's -l syntax: `a=b,c!=d,e in (x,y),f notin (z),g,!h` into requirements. */
export function parseLabelSelector(s: string): LabelSelectorRequirement[] {
  const out: LabelSelectorRequirement[] = [];
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  for (const raw of parts) {
    const p = raw.trim();
    if (p === '') continue;
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p))) {
      out.push({
        key: m[1],
        operator: m[2] === 'in' ? 'In' : 'NotIn',
        values: m[3]
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean),
      });
    } else if ((m = /^([\w./-]+)\s*!=\s*([\w.-]*)$/.exec(p))) {
      out.push({ key: m[1], operator: 'NotIn', values: [m[2]] });
    } else if ((m = /^([\w./-]+)\s*==?\s*([\w.-]*)$/.exec(p))) {
      out.push({ key: m[1], operator: 'In', values: [m[2]] });
    } else if ((m = /^!\s*([\w./-]+)$/.exec(p))) {
      out.push({ key: m[1], operator: 'DoesNotExist' });
    } else if ((m = /^([\w./-]+)$/.exec(p))) {
      out.push({ key: m[1], operator: 'Exists' });
    } else {
      throw new UsageError(
        `-l ${JSON.stringify(s)}: cannot parse "${p}" (use k=v, k!=v, k in (a,b), k notin (a), k, !k)`,
      );
    }
  }
  return out;
}

export function labelsMatch(
  reqs: LabelSelectorRequirement[],
  labels: Record<string, string> | undefined,
): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key);
    switch (r.operator) {
      case 'In':
        return has && (r.values ?? []).includes(l[r.key]);
      case 'NotIn':
        return !has || !(r.values ?? []).includes(l[r.key]);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        return false;
    }
  });
}

/** The controller kinds `why-pending TYPE/NAME` takes, with kubectl's names and short names for each. */
const CONTROLLER_TYPES: Record<string, ControllerKind> = {
  deploy: 'Deployment',
  deployment: 'Deployment',
  deployments: 'Deployment',
  sts: 'StatefulSet',
  statefulset: 'StatefulSet',
  statefulsets: 'StatefulSet',
  rs: 'ReplicaSet',
  replicaset: 'ReplicaSet',
  replicasets: 'ReplicaSet',
  ds: 'DaemonSet',
  daemonset: 'DaemonSet',
  daemonsets: 'DaemonSet',
  job: 'Job',
  jobs: 'Job',
  cj: 'CronJob',
  cronjob: 'CronJob',
  cronjobs: 'CronJob',
};

export type ControllerKind = 'Deployment' | 'StatefulSet' | 'ReplicaSet' | 'DaemonSet' | 'Job' | 'CronJob';

export interface ControllerRef {
  kind: ControllerKind;
  name: string;
}

/** kubectl's TYPE/NAME for a workload controller (deploy/api, statefulset.apps/ledger-db, sts/x, job/x), or undefined. */
export function parseControllerRef(arg: string): ControllerRef | undefined {
  const m = /^([a-z]+)(?:\.(?:apps|batch)(?:\/v1)?)?\/([^/]+)$/i.exec(arg);
  const kind = m ? CONTROLLER_TYPES[m[1].toLowerCase()] : undefined;
  return kind && m ? { kind, name: m[2] } : undefined;
}

type Owned = { metadata: { name?: string; namespace?: string; labels?: Record<string, string>; ownerReferences?: Array<{ kind: string; name: string; controller?: boolean }> } };

/**
 * Whether a pod belongs to a controller, through the chain Kubernetes builds: a Deployment's pods are owned by its
 * ReplicaSet `<deployment>-<pod-template-hash>` (the hash is the pod's own label, so the ReplicaSets need not be in
 * the input), a CronJob's by its Job, which the Job's own owner reference names (or the CronJob's `<name>-<n>` Job
 * naming, when the Jobs are not in the input).
 */
export function ownedBy(pod: Owned, ref: ControllerRef, jobs: readonly Owned[] = []): boolean {
  const owner = (pod.metadata.ownerReferences ?? []).find((r) => r.controller !== false);
  if (!owner) return false;
  switch (ref.kind) {
    case 'Deployment': {
      const hash = pod.metadata.labels?.['pod-template-hash'];
      return owner.kind === 'ReplicaSet' && hash !== undefined && owner.name === `${ref.name}-${hash}`;
    }
    case 'CronJob': {
      if (owner.kind !== 'Job') return false;
      const job = jobs.find((j) => j.metadata.name === owner.name && j.metadata.namespace === pod.metadata.namespace);
      if (job) return (job.metadata.ownerReferences ?? []).some((r) => r.kind === 'CronJob' && r.name === ref.name);
      return new RegExp(`^${ref.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+$`).test(owner.name);
    }
    default:
      return owner.kind === ref.kind && owner.name === ref.name;
  }
}

const KUBECTL_TYPE: Record<ControllerKind, string> = {
  Deployment: 'deployment',
  StatefulSet: 'statefulset',
  ReplicaSet: 'replicaset',
  DaemonSet: 'daemonset',
  Job: 'job',
  CronJob: 'cronjob',
};

/**
 * `why-pending deploy/api`: the controller's pods that `isPending` keeps (each explained as --all explains them), in
 * `namespace` when one is given. A controller that owns no pod in the input is an input error that names it.
 */
export function controllerPodSelector<P extends Owned>(
  ref: ControllerRef,
  pods: readonly P[],
  jobs: readonly Owned[],
  namespace: string | undefined,
  isPending: (p: P) => boolean,
): (p: P) => boolean {
  const owned = new Set(pods.filter((p) => (namespace === undefined || p.metadata.namespace === namespace) && ownedBy(p, ref, jobs)));
  if (owned.size === 0) {
    const pending = pods.filter(isPending).map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    throw new InputError(
      `${KUBECTL_TYPE[ref.kind]}/${ref.name} owns no pod${namespace ? ` in namespace ${namespace}` : ''} in the input` +
        (pending.length ? `; Pending pods: ${pending.slice(0, 8).join(', ')}${pending.length > 8 ? ', ...' : ''}` : '; there are no Pending pods'),
    );
  }
  const namespaces = new Set([...owned].map((p) => p.metadata.namespace));
  if (namespaces.size > 1)
    throw new UsageError(`${KUBECTL_TYPE[ref.kind]}/${ref.name} exists in several namespaces (${[...namespaces].sort().join(', ')}); pass -n <namespace>`);
  return (p) => owned.has(p) && isPending(p);
}
