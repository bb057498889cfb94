// Runs preflight's checks in-process on manifests and node groups written as they are in real files.
import { stringify } from 'yaml';
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
import { parseEksctlConfig } from '../../src/providers/aws/gather-eksctl.js';
import { manifestSetFrom, parseManifestText } from '../../src/gather/manifests.js';
import { parseNodeGroupsFile } from '../../src/gather/node-groups-file.js';
import type { Finding } from '../../src/model/findings.js';
import type { DeclaredNodeGroups } from '../../src/model/preflight.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { buildPreflight } from '../../src/simulate/preflight.js';
import { STATIC_TYPES } from './harness.js';

export const PREFLIGHT_NOW = new Date('2026-11-21T10:00:00Z');

/** general: managed m5.large in 3 zones; gpu: managed g4dn.xlarge, tainted, one zone; batch: self-managed, label not tagged. */
export const CLUSTER = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
availabilityZones: [us-east-1a, us-east-1b, us-east-1c]
managedNodeGroups:
  - name: general
    instanceTypes: [m5.large]
    minSize: 1
    maxSize: 10
    labels: {workload: general}
  - name: gpu
    instanceType: g4dn.xlarge
    minSize: 0
    maxSize: 4
    availabilityZones: [us-east-1a]
    labels: {accelerator: nvidia-t4}
    taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
nodeGroups:
  - name: batch
    instanceType: c5.2xlarge
    minSize: 0
    maxSize: 20
    availabilityZones: [us-east-1b]
    labels: {workload: batch}
    taints: {dedicated: "batch:NoSchedule"}
    iam: {withAddonPolicies: {autoScaler: true}}
    tags:
      k8s.io/cluster-autoscaler/node-template/taint/dedicated: "batch:NoSchedule"
`;

/** Kubernetes objects as one multi-document YAML stream. */
export function yamlStream(...objects: object[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

export interface PodTemplateOptions {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  spec?: Record<string, unknown>;
  containers?: Array<Record<string, unknown>>;
}

export function podSpec(o: PodTemplateOptions = {}): Record<string, unknown> {
  return {
    containers: o.containers ?? [
      {
        name: 'app',
        image: 'registry.example.com/app:1.0.0',
        resources: { requests: { cpu: '250m', memory: '512Mi' } },
      },
    ],
    ...(o.spec ?? {}),
  };
}

export function deployment(
  name: string,
  o: PodTemplateOptions & { namespace?: string; replicas?: number; meta?: Record<string, unknown> } = {},
): object {
  const labels = o.labels ?? { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: o.namespace ?? 'web', ...(o.meta ?? {}) },
    spec: {
      ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, ...(o.annotations ? { annotations: o.annotations } : {}) },
        spec: podSpec(o),
      },
    },
  };
}

export interface PreflightRunOptions {
  /** eksctl ClusterConfig text; default CLUSTER; null for none. */
  eksctl?: string | null;
  nodeGroups?: string;
  caArgs?: string[];
  cluster?: { raw: RawInputs; via: 'live' | 'from' };
}

export function preflightRun(manifests: string, o: PreflightRunOptions = {}) {
  const set = manifestSetFrom([
    { file: 'manifests.yaml', result: parseManifestText(manifests, 'manifests.yaml') },
  ]);
  const declared: DeclaredNodeGroups[] = [];
  if (o.eksctl !== null) declared.push(parseEksctlConfig(o.eksctl ?? CLUSTER, 'cluster.yaml'));
  if (o.nodeGroups) declared.push(parseNodeGroupsFile(o.nodeGroups, 'node-groups.yaml'));
  const analysis = buildPreflight(
    { manifests: set, declared, ...(o.cluster ? { cluster: o.cluster } : {}) },
    { now: PREFLIGHT_NOW, ...(o.caArgs ? { caArgs: o.caArgs } : {}), staticInstanceTypes: STATIC_TYPES },
  );
  const { findings, skipped } = runChecks(CHECKS, analysis, 'preflight');
  return {
    analysis,
    findings,
    skipped,
    of: (id: string): Finding[] => findings.filter((f) => f.checkId === id),
  };
}
