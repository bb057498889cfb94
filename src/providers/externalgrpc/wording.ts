// How reports speak of an externalgrpc group and how to change it. The provider (sunkaimr/cluster-autoscaler-grpc-
// cloud-provider @ f792442) keeps its groups in memory and rewrites the ConfigMap from memory every 5 s without reading
// it back (nodegroup/node_group.go:203-204, the ConfigMap watch is commented out); its HTTP API (:8080, server/server.go
// :114-145) changes sizes, instanceParameter and autoscalingOptions only (NodeGroups.UpdateNodeGroup), never nodeTemplate.
import type { GrpcNodeGroupSpec } from '../../model/externalgrpc.js';
import type { Taint } from '../../model/k8s.js';
import type { NodeGroup } from '../../model/node-group.js';
import { shellCommand, shellQuote } from '../../model/shell.js';
import type { ScratchTemplate } from '../../simulate/node-group-provider.js';
import type { ProviderContext, Remedy, TemplateAspect } from '../types.js';
import { describeSource, NODEGROUP_STATUS_CONFIGMAP } from './config.js';
import { findProviderDeployment, PROVIDER_IMAGE_NAME } from './deployment.js';
import { GRPC_CAPACITY_KEYS } from './template.js';
import { externalGrpcState } from './groups.js';

/** The provider's HTTP admin port (README "命令行参数": --http-address :8080). */
export const PROVIDER_HTTP_PORT = 8080;

interface Where {
  namespace: string;
  deployment: string;
  replicas: number;
  /** What the provider loads at start-up, in prose. */
  source: string;
  /** The ConfigMap an operator edits to change nodeTemplate, and its key; undefined for a bare file. */
  configMap?: { namespace: string; name: string; key: string };
  /** A file that is not a ConfigMap's key (a bare nodegroup-config.yaml given to --from). */
  file?: string;
}

function where(ctx: ProviderContext): Where {
  const dep = findProviderDeployment(ctx.raw.deployments);
  const namespace = dep?.deployment.metadata.namespace ?? dep?.namespace ?? 'kube-system';
  const deployment = dep?.deployment.metadata.name ?? PROVIDER_IMAGE_NAME;
  const replicas = dep?.deployment.spec?.replicas ?? 1;
  const used = externalGrpcState(ctx).config.used;
  const base = { namespace, deployment, replicas, source: used ? describeSource(used) : `ConfigMap ${dep?.namespace ?? 'kube-system'}/${dep?.statusConfigMap ?? NODEGROUP_STATUS_CONFIGMAP}` };
  if (!used) return { ...base, configMap: { namespace: dep?.namespace ?? 'kube-system', name: dep?.statusConfigMap ?? NODEGROUP_STATUS_CONFIGMAP, key: 'NodeGroupsConfig' } };
  if (used.kind === 'configmap') return { ...base, configMap: { namespace: used.namespace, name: used.name, key: 'NodeGroupsConfig' } };
  if (used.fromConfigMap) return { ...base, configMap: used.fromConfigMap };
  return { ...base, file: used.path };
}

function spec(group: NodeGroup): GrpcNodeGroupSpec | undefined {
  return group.provider === 'externalgrpc' ? group.grpc : undefined;
}

/** NodeGroupProvider.templateSourceLabel for externalgrpc. */
export function grpcTemplateSourceLabel(_group: NodeGroup, _t: ScratchTemplate, aspect: TemplateAspect, ctx: ProviderContext): string {
  const src = where(ctx).source;
  switch (aspect) {
    case 'labels':
      return `nodeTemplate.labels in ${src}`;
    case 'taints':
      return `nodeTemplate.taints in ${src}`;
    case 'resources':
    case 'type':
      return `nodeTemplate.capacity in ${src}`;
    default:
      return `the provider's nodeTemplate in ${src}`;
  }
}

/** NodeGroupProvider.instanceTypeOf: the CVM InstanceType of the group's instanceParameter. */
export function grpcInstanceTypeOf(group: NodeGroup, ctx: ProviderContext): string | undefined {
  const s = spec(group);
  if (!s?.instanceParameter) return undefined;
  return externalGrpcState(ctx).config.instanceParameters[s.instanceParameter]?.instanceType;
}

/** A YAML flow value for a comment line: JSON strings are valid YAML and keep a line break or quote visible. */
function y(v: string): string {
  return JSON.stringify(v);
}

/**
 * Edits to nodeTemplate: the provider must be stopped while its ConfigMap is edited (it would overwrite the edit within
 * 5 s), then started again; it loads the ConfigMap at start-up (loadNodeGroups l.1377-1400).
 */
function templateEdit(changes: Array<{ group: string; change: string }>, ctx: ProviderContext, what: string): Remedy {
  const w = where(ctx);
  const ns = ['-n', w.namespace];
  const scale = (n: number) => shellCommand(['kubectl', ...ns, 'scale', 'deployment', w.deployment, `--replicas=${n}`]);
  const lines = changes.map((c) => `#   group ${shellQuote(c.group)}: ${c.change}`);
  if (w.configMap) {
    const cm = w.configMap;
    const edit = shellCommand(['kubectl', '-n', cm.namespace, 'edit', 'configmap', cm.name]);
    const isStatus = cm.key === 'NodeGroupsConfig';
    return {
      intro: `set ${what} in the group's nodeTemplate (CA's template; the provider also puts it on the nodes it joins). Its HTTP API cannot change nodeTemplate, and it rewrites ${w.source} from memory every 5 s: stop it, edit key ${cm.key}, start it:`,
      commands: [scale(0), edit, ...lines, scale(w.replicas)],
      ...(isStatus
        ? {}
        : { note: `If ConfigMap ${w.namespace}/${NODEGROUP_STATUS_CONFIGMAP} exists, the provider loads it instead of the file: edit its NodeGroupsConfig the same way.` }),
      possible: true,
    };
  }
  return {
    intro: `set ${what} in the group's nodeTemplate in ${w.file ?? 'nodegroup-config.yaml'} (CA's template; the provider also puts it on the nodes it joins), then restart the provider:`,
    commands: [...lines, shellCommand(['kubectl', ...ns, 'rollout', 'restart', 'deployment', w.deployment])],
    note: `The file is read only when ConfigMap ${w.namespace}/${NODEGROUP_STATUS_CONFIGMAP} is absent or empty: if it exists, stop the provider and edit its NodeGroupsConfig instead.`,
    possible: true,
  };
}

export function grpcSetTemplateLabels(edits: Array<{ group: NodeGroup; key: string; value: string }>, ctx: ProviderContext): Remedy {
  return templateEdit(
    edits.map((e) => ({ group: e.group.name, change: `nodeTemplate.labels: ${y(e.key)}: ${y(e.value)}` })),
    ctx,
    edits.length === 1 ? 'the label' : 'the labels',
  );
}

export function grpcSetTemplateTaint(group: NodeGroup, taint: Taint, ctx: ProviderContext): Remedy {
  const t = `{key: ${y(taint.key)}, ${taint.value ? `value: ${y(taint.value)}, ` : ''}effect: ${y(taint.effect)}}`;
  return templateEdit([{ group: group.name, change: `nodeTemplate.taints: add ${t}` }], ctx, 'the taint');
}

/** The POST /api/v1/nodegroup body: UpdateNodeGroupHandler binds JSON into NodeGroup and UpdateNodeGroup overwrites
 * minSize, maxSize, instanceParameter and autoscalingOptions (nil when absent), so every one is sent as it is today. */
function updateBody(s: GrpcNodeGroupSpec, min: number, max: number): string {
  const body: Record<string, unknown> = { id: s.id, minSize: min, maxSize: max, instanceParameter: s.instanceParameter };
  const o = s.autoscalingOptions;
  if (o) {
    // time.Duration marshals as integer nanoseconds in encoding/json
    body.autoscalingOptions = {
      scaleDownUtilizationThreshold: o.scaleDownUtilizationThreshold,
      scaleDownGpuUtilizationThreshold: o.scaleDownGpuUtilizationThreshold,
      scaleDownUnneededTime: Math.round(o.scaleDownUnneededTimeMs * 1e6),
      scaleDownUnreadyTime: Math.round(o.scaleDownUnreadyTimeMs * 1e6),
    };
  }
  return JSON.stringify(body);
}

function httpUpdate(s: GrpcNodeGroupSpec, min: number, max: number, ctx: ProviderContext): string[] {
  const w = where(ctx);
  const port = String(PROVIDER_HTTP_PORT);
  return [
    `${shellCommand(['kubectl', '-n', w.namespace, 'port-forward', `deployment/${w.deployment}`, `${port}:${port}`])} &`,
    shellCommand([
      'curl', '-sS', '-X', 'POST', `http://127.0.0.1:${port}/api/v1/nodegroup`,
      '-H', 'Content-Type: application/json', '-d', updateBody(s, min, max),
    ]),
  ];
}

function portForward(ctx: ProviderContext): string {
  const w = where(ctx);
  const port = String(PROVIDER_HTTP_PORT);
  return `${shellCommand(['kubectl', '-n', w.namespace, 'port-forward', `deployment/${w.deployment}`, `${port}:${port}`])} &`;
}

/**
 * Retry instance records in place: POST /api/v1/nodegroup/instance sets stage, status and error of each record by id
 * (server/server.go:145,430-444), and the provider's router picks up a record whose status is Init within seconds
 * (node_group.go:1593-1645). The provider's HTTP API is unauthenticated: port-forward, never expose it.
 */
export function grpcRetryInstances(records: Array<{ id: string; stage: string }>, ctx: ProviderContext): string[] {
  const body = JSON.stringify(records.map((r) => ({ id: r.id, stage: r.stage, status: 'Init', error: '' })));
  return [
    portForward(ctx),
    shellCommand(['curl', '-sS', '-X', 'POST', `http://127.0.0.1:${PROVIDER_HTTP_PORT}/api/v1/nodegroup/instance`, '-H', 'Content-Type: application/json', '-d', body]),
  ];
}

/** PATCH /api/v1/nodegroup/<id>?delta=N (server/server.go:139,456-482): +N creates instances, -N drops Pending records
 * (never below min size: DecreaseNodeGroupTargetSize, node_group.go:966-989). */
export function grpcChangeSize(group: string, delta: number, ctx: ProviderContext): string[] {
  return [
    portForward(ctx),
    shellCommand(['curl', '-sS', '-X', 'PATCH', `http://127.0.0.1:${PROVIDER_HTTP_PORT}/api/v1/nodegroup/${encodeURIComponent(group)}?delta=${delta}`]),
  ];
}

/** The provider logs every failed create/hook with the group id (node_group.go: "nodegroup(%s) ..."); CA drops its
 * ErrorInfo (externalgrpc_node_group.go:180-190), so the log and the instance records are where the cause is. */
export function grpcInspectFailures(group: NodeGroup, ctx: ProviderContext): Remedy {
  const w = where(ctx);
  return {
    intro: `Find the failure in the provider's log and the group's instance records (stage, status, error); CA never receives the provider's error, only a scale-up timeout after --max-node-provision-time:`,
    commands: [
      `${shellCommand(['kubectl', '-n', w.namespace, 'logs', `deployment/${w.deployment}`, '--since=1h'])} | ${shellCommand(['grep', '-F', `nodegroup(${group.name})`])}`,
    ],
    possible: true,
  };
}

export function grpcLowerMinSize(group: NodeGroup, minSize: number, ctx: ProviderContext): Remedy {
  const s = spec(group);
  return {
    intro: "If the group may shrink, lower its min size through the provider's HTTP API:",
    commands: s ? httpUpdate(s, minSize, s.maxSize, ctx) : [],
    possible: true,
  };
}

export function grpcRaiseMaxSize(group: NodeGroup, maxSize: number, ctx: ProviderContext): Remedy {
  const s = spec(group);
  if (!s) return { intro: `Raise ${group.name}'s max size.`, commands: [], possible: true };
  if (!s.instanceParameter) {
    return {
      intro: `${group.name} has no instanceParameter: the provider cannot create instances for it ("nodegroup(${s.id}).InstanceParameter[] not exist", node_group.go:1844), so a higher max size adds no node.`,
      commands: [],
      possible: false,
    };
  }
  return {
    intro: `Raise the group's max size through the provider's HTTP API (it sets minSize, maxSize, instanceParameter and autoscalingOptions from the body, so all are sent; the README's /v1/nodegroup path is /api/v1/nodegroup in server.go), e.g.`,
    commands: httpUpdate(s, s.minSize, maxSize, ctx),
    possible: true,
  };
}

export function grpcSetTemplateResource(group: NodeGroup, resource: string, quantity: string, ctx: ProviderContext): Remedy {
  const s = spec(group);
  if ((GRPC_CAPACITY_KEYS as readonly string[]).includes(resource)) {
    return templateEdit([{ group: group.name, change: `nodeTemplate.capacity: ${y(resource)}: ${y(quantity)}` }], ctx, `${resource}`);
  }
  const intro = `The provider never passes ${resource} to CA: its template reads only cpu, memory and ephemeral-storage from nodeTemplate.capacity (BuildNodeFromTemplate, node_group.go:1040-1100). Keep one node of the group running so CA copies a real node's allocatable`;
  if (!s?.instanceParameter) return { intro: `${intro}.`, commands: [], possible: false };
  // minSize alone starts nothing: CA raises a group to its min size only with --enforce-node-group-min-size=true
  // (default false, main.go:107@cluster-autoscaler-1.28.4), and UpdateNodeGroup only sets the fields (node_group.go:463-498)
  const start = s.targetSize < 1 ? grpcChangeSize(s.id, 1, ctx).slice(1) : [];
  return {
    intro: `${intro} (minSize 1${start.length ? ', and one node started now: a min size alone starts no node unless CA runs with --enforce-node-group-min-size=true' : ''}):`,
    commands: [...httpUpdate(s, Math.max(1, s.minSize), Math.max(1, s.maxSize), ctx), ...start],
    possible: false,
  };
}

/**
 * preflight's workload-unplaceable advice in this provider's words, per failure category (the AWS words name tags and
 * launch templates): what the provider puts into CA's scratch template (BuildNodeFromTemplate, node_group.go:1040-1100
 * @f792442: nodeTemplate labels and taints, only cpu, memory and ephemeral-storage, amd64, linux).
 */
export const GRPC_PLACEMENT_ADVICE: Partial<Record<string, string>> = {
  gpu: "Run it on a GPU node group; this provider never passes nvidia.com/gpu to CA's template (it reads only cpu, memory and ephemeral-storage from nodeTemplate.capacity), so a GPU group must keep one node running for CA to copy a real node (externalgrpc-template-resources-ignored).",
  selector:
    "Make the pod's nodeSelector / required node affinity match a group's labels, or give the group those labels in its nodeTemplate.labels (CA's template; the provider also puts them on the nodes it joins).",
  arch: "The pod selects a CPU architecture no group runs: the provider's template is always amd64 (beta.kubernetes.io/arch); build a multi-arch image and drop the selector.",
  os: "The pod selects an operating system no group runs: the provider's template is always linux.",
  taint: "Tolerate the taint in the pod template, or point the pod at a group without it (the taints come from the group's nodeTemplate.taints).",
  zone: "The pod (or its volumes) asks for a zone: the provider's template has no zone or region label, so no group matches a zonal requirement from zero.",
  gate: "Raise the group's maxSize above 0 (the provider's POST /api/v1/nodegroup), or fix what keeps CA from building its template.",
};
