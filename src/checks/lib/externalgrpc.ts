// The externalgrpc provider's findings (src/providers/externalgrpc/findings.ts) for the externalgrpc-* checks:
// computed once per Analysis, and the skip that says which of the provider's inputs to supply when they are missing.
import type { Subject } from '../../model/findings.js';
import { shellCommand } from '../../model/shell.js';
import type { Analysis } from '../../simulate/analysis.js';
import { findProviderDeployment } from '../../providers/externalgrpc/deployment.js';
import {
  externalGrpcFindings,
  externalGrpcFindingsInput,
  type GrpcFinding,
  type GrpcFindingId,
  type GrpcFindingsInput,
} from '../../providers/externalgrpc/findings.js';
import { externalGrpcState } from '../../providers/externalgrpc/groups.js';
import type { CheckContext } from '../define-check.js';

const cache = new WeakMap<Analysis, { input: GrpcFindingsInput; findings: GrpcFinding[] }>();

function computed(a: Analysis): { input: GrpcFindingsInput; findings: GrpcFinding[] } {
  let hit = cache.get(a);
  if (!hit) {
    const input = externalGrpcFindingsInput(a.providerContext);
    hit = { input, findings: externalGrpcFindings(input) };
    cache.set(a, hit);
  }
  return hit;
}

/** The findings of one id (G1…G11, STUCK) on this snapshot. */
export function grpcFindings(a: Analysis, ...ids: GrpcFindingId[]): GrpcFinding[] {
  return computed(a).findings.filter((f) => ids.includes(f.id));
}

export function grpcInput(a: Analysis): GrpcFindingsInput {
  return computed(a).input;
}

/** The namespace the provider runs in (its --namespace flag), for commands. */
export function providerNamespace(a: Analysis): string {
  return findProviderDeployment(a.raw.deployments)?.namespace ?? 'kube-system';
}

/** The provider's Deployment as kubectl addresses it: its own namespace (not its --namespace flag) and name. */
export function providerDeploymentRef(a: Analysis): { namespace: string; name: string } {
  const dep = findProviderDeployment(a.raw.deployments)?.deployment;
  return { namespace: dep?.metadata.namespace ?? 'kube-system', name: dep?.metadata.name ?? 'cluster-autoscaler-grpc-cloud-provider' };
}

/** `kubectl logs` of the provider's Deployment, shell-quoted. */
export function providerLogsCommand(a: Analysis): string {
  const ref = providerDeploymentRef(a);
  return shellCommand(['kubectl', '-n', ref.namespace, 'logs', `deploy/${ref.name}`]);
}

/** The kubectl command that puts the provider's state into a dump. */
export function statusConfigMapCommand(a: Analysis): string {
  const dep = findProviderDeployment(a.raw.deployments);
  return shellCommand(['kubectl', '-n', dep?.namespace ?? 'kube-system', 'get', 'configmap', dep?.statusConfigMap ?? 'nodegroup-status', '-o', 'json']);
}

/**
 * False (and the check skipped, saying what to supply) when the provider's node-group config is not in the input:
 * neither the nodegroup-status ConfigMap nor nodegroup-config.yaml. `needs` adds what else the check reads.
 */
export function grpcGate(ctx: CheckContext, needs: { caVersion?: boolean; nodes?: boolean; file?: boolean } = {}): boolean {
  const a = ctx.analysis;
  const cfg = externalGrpcState(a.providerContext).config;
  if (!cfg.used) {
    ctx.skip(
      'not-provided',
      `no externalgrpc provider config in the input (${cfg.usedReason}): add \`${statusConfigMapCommand(a)} > nodegroup-status.json\` or the provider's nodegroup-config.yaml to the dump`,
    );
    return false;
  }
  if (needs.caVersion && (!a.ca.found || !a.ca.version.known)) {
    ctx.skip(
      'not-provided',
      "CA's version is unknown (no CA Deployment with a tagged image in the input): add `kubectl -n kube-system get deploy cluster-autoscaler -o json` to the dump or pass --ca-args",
    );
    return false;
  }
  if (needs.nodes && !a.raw.provided.has('nodes')) {
    ctx.skip('not-provided', 'no nodes in the input: add `kubectl get nodes -o json > nodes.json` to the dump');
    return false;
  }
  if (needs.file && cfg.used.kind === 'configmap' && cfg.fileDiffersFromConfigMap === undefined) {
    const dep = findProviderDeployment(a.raw.deployments);
    ctx.skip(
      'not-provided',
      `only ${cfg.usedDescription} is in the input, not the provider's start-up file ${dep?.configFile ?? 'nodegroup-config.yaml'}: add the provider's Deployment and the ConfigMap it mounts (or the file itself) to compare them`,
    );
    return false;
  }
  return true;
}

export function grpcGroupSubject(group: string): Subject {
  return { kind: 'NodeGroup', name: group };
}

/** Where the loaded config came from, for evidence. */
export function configSource(a: Analysis): string {
  return externalGrpcState(a.providerContext).config.usedDescription;
}

/** A duration in minutes for prose ("15m"). */
export function minutes(ms: number): string {
  return `${Math.round(ms / 60_000)}m`;
}

/** Values a finding carries as a list, joined for prose. */
export function listValue(v: string | number | boolean | string[] | undefined): string {
  return Array.isArray(v) ? v.join(', ') : String(v ?? '');
}

export const PROVIDER_REPO = 'sunkaimr/cluster-autoscaler-grpc-cloud-provider';
