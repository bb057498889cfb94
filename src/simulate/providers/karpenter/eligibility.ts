// Which pending pods Karpenter considers: pod/scheduling.go IsProvisionable, then provisioner.go Validate. Pure.
import type { NodeSelectorRequirement, Pod } from '../../../model/k8s.js';
import { NODEPOOL_LABEL } from '../../../model/karpenter.js';
import { NORMALIZED_LABELS, activeWellKnownLabels, addRequirement, labelRequirements, operatorOf, ownedBy, requirementsFrom } from './requirements.js';
import { karpenterHas } from './versions.js';
import type { KarpenterPlacementContext, PodEligibility } from './placement-types.js';

/** labels.go IsRestrictedLabel of the input's version (the AWS provider adds karpenter.k8s.aws to the domains). */
function restrictedLabelError(key: string, version: string | undefined): string | undefined {
  const k = NORMALIZED_LABELS[key] ?? key;
  const wellKnown = activeWellKnownLabels();
  if (wellKnown.has(k)) return undefined;
  const domain = k.includes('/') ? k.split('/')[0] : '';
  if (karpenterHas(version, 'restricted-labels-karpenter-only')) {
    // labels.go:126-141@v1.9.0
    const restrictedDomains = ['karpenter.k8s.aws', 'karpenter.sh'];
    const msg = `using label ${k} is not allowed as it might interfere with the internal provisioning logic; specify a well known label: [${[...wellKnown].sort().join(' ')}], or a custom label that does not use a restricted domain: [${restrictedDomains.join(' ')}]`;
    if (restrictedDomains.some((d) => domain === d || domain.endsWith(`.${d}`))) return msg;
    if (k === 'kubernetes.io/hostname') return msg;
    return undefined;
  }
  // labels.go:122-163@v1.6.2 IsRestrictedNodeLabel: plain suffix matches, exceptions first, then hostname
  const restrictedDomains = ['k8s.io', 'karpenter.k8s.aws', 'karpenter.sh', 'kubernetes.io'];
  const exceptions = ['kops.k8s.io', 'node.kubernetes.io', 'node-restriction.kubernetes.io'];
  const restricted = exceptions.some((d) => domain.endsWith(d)) ? false : restrictedDomains.some((d) => domain.endsWith(d)) || k === 'kubernetes.io/hostname';
  if (!restricted) return undefined;
  return `label is restricted; specify a well known label or a custom label that does not use a restricted domain (label=${k}, well-known-labels=[${[...wellKnown].sort().join(' ')}], restricted-labels=[${restrictedDomains.join(' ')}])`;
}

/** pod/scheduling.go HasDRARequirements: pod-level resourceClaims or claims on any container. */
export function hasDRARequirements(pod: Pod): boolean {
  if (Array.isArray(pod.spec.resourceClaims) && pod.spec.resourceClaims.length > 0) return true;
  return [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])].some((c) => {
    const claims = (c.resources as { claims?: unknown[] } | undefined)?.claims;
    return Array.isArray(claims) && claims.length > 0;
  });
}

/** pod/scheduling.go IsProvisionable, then provisioner.go Validate (the parts that need no API lookups beyond PVCs). */
export function karpenterPodEligibility(pod: Pod, ctx: Pick<KarpenterPlacementContext, 'pvcs' | 'storageClasses' | 'settings'> = {}): PodEligibility {
  const version = ctx.settings?.version;
  const unschedulable = (pod.status?.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable');
  if (!unschedulable) {
    return { provisionable: false, reason: 'kube-scheduler has not marked the pod PodScheduled=False reason Unschedulable; Karpenter only acts on such pods' };
  }
  if (pod.spec.nodeName) return { provisionable: false, reason: `the pod is bound to node ${pod.spec.nodeName}` };
  if (pod.status?.nominatedNodeName) {
    return { provisionable: false, reason: `the pod is preempting (nominatedNodeName ${pod.status.nominatedNodeName}); Karpenter waits` };
  }
  if (ownedBy(pod, 'apps/v1', 'DaemonSet')) return { provisionable: false, reason: 'DaemonSet pods never trigger Karpenter provisioning' };
  if (ownedBy(pod, 'v1', 'Node')) return { provisionable: false, reason: 'static (mirror) pods never trigger Karpenter provisioning' };

  // provisioner.go:578 KarpenterManagedLabelDoesNotExistError: ignored without an event (provisioner.go:209)
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  // NewPodRequirements: node selector, the heaviest preferred term, then the first required term
  const withPreferred = labelRequirements(pod.spec.nodeSelector);
  const preferred = [...((pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as Array<{ weight?: number; preference?: { matchExpressions?: NodeSelectorRequirement[] } }>)].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0));
  for (const r of requirementsFrom(preferred[0]?.preference?.matchExpressions ?? []).values()) addRequirement(withPreferred, r);
  for (const r of requirementsFrom(terms[0]?.matchExpressions ?? []).values()) addRequirement(withPreferred, r);
  const np = withPreferred.get(NODEPOOL_LABEL);
  if (np && operatorOf(np) === 'DoesNotExist') {
    return {
      provisionable: false,
      silent: true,
      reason: `configured to not run on a Karpenter provisioned node (requirement=${NODEPOOL_LABEL} DoesNotExist)`,
    };
  }
  const errs: string[] = [];
  const validate = (key: string, operator: string, values: string[]): void => {
    const k = key;
    // nodeclaim_validation.go SupportedNodeSelectorOps: Gte/Lte from v1.9.0 (and the core API refuses them in pods)
    const ops = karpenterHas(version, 'requirement-bounds-gte') ? ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'] : ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
    if (!ops.includes(operator)) {
      errs.push(`key ${k} has an unsupported operator ${operator}`);
    }
    const r = restrictedLabelError(k, version);
    if (r) errs.push(r);
    if (operator === 'In' && values.length === 0) errs.push(`key ${k} with operator ${operator} must have a value defined`);
  };
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) validate(k, 'In', [v]);
  for (const t of terms) {
    if (t.matchFields) errs.push('node selector term with matchFields is not supported');
    for (const r of t.matchExpressions ?? []) validate(r.key, r.operator, r.values ?? []);
  }
  // volumetopology.go ValidatePersistentVolumeClaims (the offline-checkable cases); it stops at the first bad claim
  for (const vol of pod.spec.volumes ?? []) {
    const ns = pod.metadata.namespace ?? 'default';
    const claim = vol.persistentVolumeClaim?.claimName ?? (vol.ephemeral ? `${pod.metadata.name ?? ''}-${vol.name}` : undefined);
    if (!claim || !ctx.pvcs) continue;
    const pvc = ctx.pvcs.find((p) => p.metadata.name === claim && (p.metadata.namespace ?? 'default') === ns);
    let e: string | undefined;
    const v17 = karpenterHas(version, 'pvc-validation-texts');
    if (!pvc) e = `getting persistent volume claim, persistentvolumeclaims "${claim}" not found (PersistentVolumeClaim=${claim})`;
    else if (v17 && pvc.metadata.deletionTimestamp) e = `persistentvolumeclaim is being deleted (PersistentVolumeClaim=${ns}/${claim})`;
    else if (v17 && pvc.spec?.volumeName && !pvc.metadata.annotations?.['pv.kubernetes.io/bind-completed']) {
      e = `pvc is considered unbound because it does not contain annotation (PersistentVolume=${pvc.spec.volumeName}, PersistentVolumeClaim=${claim}, annotation=pv.kubernetes.io/bind-completed)`;
    } else if (!pvc.spec?.volumeName && !pvc.spec?.storageClassName) {
      // volumetopology.go:171-175@v1.6.2 names the claim without its namespace and no StorageClass
      e = v17 ? `unbound pvc must define a storage class (PersistentVolumeClaim=${ns}/${claim}, StorageClass=)` : `unbound pvc must define a storage class (PersistentVolumeClaim=${claim})`;
    }
    if (e) {
      errs.push(e);
      break;
    }
  }
  if (errs.length > 0) {
    const err = errs.join('; ');
    // provisioner.go:176-178@v1.7.0 publishes PodFailedToScheduleEvent with the Validate error; before v1.7 only a V(1) log line
    if (!karpenterHas(version, 'validate-event')) return { provisionable: false, reason: `ignoring pod, ${err}`, silent: true };
    return { provisionable: false, reason: `ignoring pod, ${err}`, event: `Failed to schedule pod, ${err}` };
  }
  return { provisionable: true };
}
