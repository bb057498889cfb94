// Issue 14: preflight on the inputs users really have (eksctl configs as eksctl writes them, real manifest sets).
// Three outcomes: fits, does not fit (with CA's or the scheduler's reason), not evaluated (what is missing, how to
// supply it). Only the second fails the gate.
import { describe, expect, it, vi } from 'vitest';
import { parseManifestText, WORKLOAD_KINDS } from '../../src/gather/manifests.js';
import { parseEksctlConfig } from '../../src/providers/aws/gather-eksctl.js';
import { emptyInputs } from '../../src/model/snapshot.js';
import { parseEksctlMemoryMiB, preflightOf, resolveInstanceSelector } from '../../src/simulate/preflight.js';
import { STATIC_TYPES } from '../checks/harness.js';
import { deployment, preflightRun, yamlStream } from '../checks/preflight-harness.js';

const big = deployment('big', {
  containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '3', memory: '1Gi' } } }],
});
const noRequests = deployment('noreq', { containers: [{ name: 'app', image: 'busybox:1.36' }] });

// eksctl: pkg/eks/nodegroup_service.go (Normalize, ExpandInstanceSelectorOptions, expandInstanceSelector)
describe('node groups casdoctor cannot build offline are "not evaluated", never a CA verdict', () => {
  const managedLt = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: dev, region: us-west-2}
managedNodeGroups:
  - name: lt
    launchTemplate:
      id: lt-0123456789abcdef0
      version: "3"
    minSize: 1
    maxSize: 3
`;

  it('does not model a managed group with only a launchTemplate as m5.large, and says what is missing', () => {
    const g = parseEksctlConfig(managedLt, 'cluster.yaml').groups[0];
    expect(g.instanceTypes).toEqual([]);
    expect(g.notes.join('\n')).not.toMatch(/m5\.large/);
    expect(g.unresolved?.missing).toMatch(/launch template lt-0123456789abcdef0 version 3/);
    expect(g.unresolved?.supply).toMatch(/describe-launch-template-versions/);
  });

  it('skips workload-unplaceable (exit 3 under strict) instead of failing on CA\'s "unable to find instance type"', () => {
    const r = preflightRun(yamlStream(big), { eksctl: managedLt });
    expect(r.of('workload-unplaceable')).toEqual([]);
    const skip = r.skipped.find((s) => s.checkId === 'workload-unplaceable');
    expect(skip?.reason).toBe('not-evaluated');
    expect(skip?.detail).toMatch(/node group lt not evaluated: casdoctor lacks the instance type of launch template/);
    expect(skip?.detail).toMatch(/Deployment web\/big/);
    expect(skip?.detail).not.toMatch(/unable to find instance type/);
  });

  it('gives a pod without requests no garbled "which lacks CA builds no template" sentence', () => {
    // a selector nothing matches: the group is not evaluated (before: a no-template gate and a garbled sentence)
    const unmatched = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: dev, region: us-west-2}
managedNodeGroups:
  - name: odd
    instanceSelector: {vCPUs: 3, memory: "5"}
    minSize: 0
    maxSize: 3
`;
    const r = preflightRun(yamlStream(noRequests), { eksctl: unmatched });
    for (const f of r.findings) expect(f.message).not.toMatch(/lacks CA builds no template/);
    expect(r.of('workload-fits-only-real-nodes')).toEqual([]);
    expect(r.skipped.find((s) => s.checkId === 'workload-unplaceable')?.detail).toMatch(/node group odd not evaluated/);
  });

  it('still fails the workload when an evaluated group rejects it and no group is left unevaluated', () => {
    const r = preflightRun(yamlStream(big), {
      eksctl: `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: dev, region: us-west-2}
managedNodeGroups:
  - name: small
    instanceTypes: [t3.medium]
    minSize: 1
    maxSize: 3
`,
    });
    expect(r.of('workload-unplaceable')).toHaveLength(1);
  });

  it('treats an ASG whose launch template is not in the --from dump as not evaluated', () => {
    const r = preflightRun(yamlStream(big), {
      eksctl: null,
      caArgs: ['--nodes=1:5:apps-asg'],
      cluster: {
        via: 'from',
        raw: {
          ...emptyRaw(),
          autoScalingGroups: [
            {
              AutoScalingGroupName: 'apps-asg',
              MinSize: 1,
              MaxSize: 5,
              DesiredCapacity: 1,
              AvailabilityZones: ['us-west-2a'],
              Instances: [],
              Tags: [],
              LaunchTemplate: { LaunchTemplateId: 'lt-0aaaabbbbccccdddd', Version: '$Latest' },
            },
          ],
          provided: new Set(['autoScalingGroups']),
        },
      },
    });
    const g = preflightOf(r.analysis)?.groups[0];
    expect(g?.gate?.kind).toBe('not-evaluated');
    expect(g?.notEvaluated?.supply).toMatch(/aws ec2 describe-launch-template-versions/);
    expect(r.of('workload-unplaceable')).toEqual([]);
    expect(r.skipped.find((s) => s.checkId === 'workload-unplaceable')?.reason).toBe('not-evaluated');
  });
});

describe('an eksctl instanceSelector resolved offline, as eksctl would', () => {
  const selector = (sel: string) => `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: dev, region: us-west-2}
managedNodeGroups:
  - name: sel
    instanceSelector: ${sel}
    minSize: 1
    maxSize: 5
`;

  it('reads memory as eksctl does: a bare number is GiB', () => {
    expect(parseEksctlMemoryMiB('4')).toBe(4096);
    expect(parseEksctlMemoryMiB('4GiB')).toBe(4096);
    expect(parseEksctlMemoryMiB('512 MiB')).toBe(512);
    expect(parseEksctlMemoryMiB('lots')).toBeUndefined();
  });

  it('matches vCPUs and memory exactly on x86_64 (eksctl\'s default architecture) and CA simulates the first', () => {
    const g = resolveInstanceSelector(
      parseEksctlConfig(selector('{vCPUs: 2, memory: "4"}'), 'c.yaml').groups[0],
      STATIC_TYPES,
    );
    expect(g.instanceTypes.length).toBeGreaterThan(1);
    expect(g.instanceTypes).toContain('c5.large');
    expect(g.instanceTypes).not.toContain('c6g.large');
    for (const t of g.instanceTypes) {
      expect(STATIC_TYPES.instanceTypes[t]).toMatchObject({ vcpu: 2, memoryMiB: 4096, architecture: 'amd64' });
    }
  });

  it('lets the workload fit a group an instanceSelector defines (no "unable to find instance type")', () => {
    const r = preflightRun(yamlStream(deployment('api')), { eksctl: selector('{vCPUs: 4, memory: "16", cpuArchitecture: arm64}') });
    expect(r.of('workload-unplaceable')).toEqual([]);
    expect(r.skipped.filter((s) => s.checkId === 'workload-unplaceable')).toEqual([]);
    expect(preflightOf(r.analysis)?.groups[0].scratch.instanceTypeInfo).toMatchObject({ vcpu: 4, architecture: 'arm64' });
  });

  it('treats `instanceSelector: {}` (what `eksctl create cluster --dry-run` writes) as absent', () => {
    const g = parseEksctlConfig(selector('{}'), 'c.yaml').groups[0];
    expect(g.instanceSelector).toBeUndefined();
    expect(g.instanceTypes).toEqual(['m5.large']);
  });

  it('is not evaluated when nothing in the table matches', () => {
    const g = resolveInstanceSelector(
      parseEksctlConfig(selector('{vCPUs: 3, memory: "5"}'), 'c.yaml').groups[0],
      STATIC_TYPES,
    );
    expect(g.unresolved?.missing).toMatch(/none in casdoctor's instance-type table matches/);
  });
});

function emptyRaw() {
  return emptyInputs();
}

describe('static provisioning: claims as they will be once applied', () => {
  const pv = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'nfs-pv' },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteMany'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: '',
      nfs: { server: '10.0.0.12', path: '/exports/data' },
    },
  };
  const claim = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'web' },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '10Gi' } }, ...spec },
  });
  const reader = (claimName: string) =>
    deployment('reader', {
      spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
    });

  it('binds a claim pre-bound (volumeName) to a PersistentVolume in the same manifests: not "unbound immediate"', () => {
    const r = preflightRun(
      yamlStream(pv, claim('nfs-claim', { storageClassName: '', volumeName: 'nfs-pv' }), reader('nfs-claim')),
    );
    expect(r.of('workload-unplaceable')).toEqual([]);
    expect(JSON.stringify(r.findings)).not.toMatch(/unbound immediate/);
  });

  it('treats a claim in no input as unknown (its volume not evaluated), also when the cluster\'s claims were gathered', () => {
    const raw = emptyInputs();
    raw.provided.add('pvcs');
    raw.provided.add('pvs');
    const r = preflightRun(yamlStream(reader('made-by-another-chart')), { cluster: { raw, via: 'from' } });
    expect(r.of('workload-unplaceable')).toEqual([]);
    const p = preflightOf(r.analysis);
    expect(p?.workloads.length).toBe(1);
  });

  it('never names a class-less claim with the internal placeholder casdoctor-unknown-default', () => {
    const r = preflightRun(yamlStream(claim('old', { volumeName: 'pv-elsewhere' }), reader('old')));
    expect(JSON.stringify(r.findings)).not.toMatch(/casdoctor-unknown-default/);
    expect(r.of('workload-unplaceable')).toEqual([]);
  });
});

// eksctl: pkg/cfn/builder/nodegroup.go GenerateClusterAutoscalerTags, pkg/apis/eksctl.io/v1alpha5/types.go
describe("eksctl's own builder: what propagateASGTags writes, local zones, clusters without node groups", () => {
  const gpuCluster = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: dev, region: us-west-2}
nodeGroups:
  - name: gpu
    instanceType: g4dn.xlarge
    minSize: 0
    maxSize: 4
    availabilityZones: [us-west-2a]
    propagateASGTags: true
    iam: {withAddonPolicies: {autoScaler: true}}
    labels: {accelerator: nvidia-t4}
    taints:
      - {key: nvidia.com/gpu, value: "true", effect: NoSchedule}
      - {key: dedicated, value: ml, effect: NoSchedule}
  - name: edge
    instanceType: c5.xlarge
    localZones: [us-west-2-lax-1a]
    minSize: 0
    maxSize: 2
`;
  const onGpu = (spec: Record<string, unknown>, requests: Record<string, string> = { cpu: '500m', memory: '256Mi' }) =>
    deployment('infer', {
      spec: { nodeSelector: { accelerator: 'nvidia-t4' }, ...spec },
      containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests } }],
    });

  it('writes the taint tag with the value only (no ":<effect>"), as eksctl does', () => {
    const g = parseEksctlConfig(gpuCluster, 'cluster.yaml').groups[0];
    expect(g.asgTags).toContainEqual({ key: 'k8s.io/cluster-autoscaler/node-template/taint/dedicated', value: 'ml' });
    expect(g.asgTags).toContainEqual({ key: 'k8s.io/cluster-autoscaler/node-template/label/accelerator', value: 'nvidia-t4' });
  });

  it("so CA's template has no taint, and the fix names both taints as explicit tags, not propagateASGTags", () => {
    const r = preflightRun(yamlStream(onGpu({})), { eksctl: gpuCluster });
    expect(preflightOf(r.analysis)?.groups.find((g) => g.group.name === 'gpu')?.scratch.node?.spec?.taints ?? []).toEqual([]);
    const [f] = r.of('workload-fits-template-not-real-node');
    expect(f.remediation).toContain('k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu: "true:NoSchedule"');
    expect(f.remediation).toContain('k8s.io/cluster-autoscaler/node-template/taint/dedicated: "ml:NoSchedule"');
    expect(f.remediation).not.toMatch(/set `propagateASGTags: true`/);
  });

  it('does not offer propagateASGTags for a missing ephemeral-storage resource tag (eksctl never propagates it)', () => {
    const tolerating = onGpu(
      { tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }] },
      { cpu: '500m', memory: '256Mi', 'ephemeral-storage': '2Gi' },
    );
    const [f] = r2(tolerating);
    expect(f.remediation).toContain('node-template/resources/ephemeral-storage');
    expect(f.remediation).not.toMatch(/set `propagateASGTags: true`/);
    function r2(d: object) {
      return preflightRun(yamlStream(d), { eksctl: gpuCluster }).of('workload-fits-only-real-nodes');
    }
  });

  it('puts a group with localZones in its local zone, not <region>a/b/c', () => {
    const g = parseEksctlConfig(gpuCluster, 'cluster.yaml').groups.find((x) => x.name === 'edge');
    expect(g?.zones).toEqual(['us-west-2-lax-1a']);
    expect(g?.notes.join(' ')).not.toMatch(/us-west-2a/);
  });

  it('treats an Auto Mode cluster (no node groups) as nothing for CA to scale, not as unread input', () => {
    const auto = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: auto, region: us-west-2, version: "1.33"}
autoModeConfig:
  enabled: true
`;
    const parsed = parseEksctlConfig(auto, 'auto.yaml');
    expect(parsed.warnings).toEqual([]);
    expect(parsed.noGroupsReason).toMatch(/EKS Auto Mode/);
    expect(preflightOf(preflightRun(yamlStream(deployment('api')), { eksctl: auto }).analysis)?.nodeGroupSourceGiven).toBe(false);
  });
});

describe('silent drops and wrong diagnoses in -f manifests', () => {
  // kubernetes/examples style: a core/v1 ReplicationController (written here, not copied)
  const rc = `apiVersion: v1
kind: ReplicationController
metadata:
  name: redis-master
  labels:
    app: redis
spec:
  replicas: 1
  selector:
    app: redis
  template:
    metadata:
      labels:
        app: redis
    spec:
      containers:
      - name: master
        image: redis:7.2
        resources:
          requests:
            cpu: 100m
            memory: 100Mi
`;

  it('recognises a ReplicationController as pod-creating and evaluates its pod', () => {
    expect(WORKLOAD_KINDS.has('ReplicationController')).toBe(true);
    const parsed = parseManifestText(rc, 'redis.yaml');
    expect(parsed.ignoredKinds).toEqual({});
    const r = preflightRun(rc);
    const w = preflightOf(r.analysis)?.workloads.find((x) => x.kind === 'ReplicationController');
    expect(w?.pod.metadata.ownerReferences?.[0]).toMatchObject({ apiVersion: 'v1', kind: 'ReplicationController', name: 'redis-master' });
    expect(r.of('workload-unplaceable')).toEqual([]);
  });

  it('diagnoses an unrendered Helm template ("render it first"), not "malformed JSON"', () => {
    const tpl = `{{- if .Values.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.fullname" . }}
{{- end }}
`;
    expect(() => parseManifestText(tpl, 'templates/deployment.yaml')).toThrow(
      /templates\/deployment\.yaml:1: an unrendered Helm template .*render it first \(`helm template <release> <chart> \| casdoctor preflight -f -`\)/,
    );
    expect(() => parseManifestText(tpl, 'templates/deployment.yaml')).not.toThrow(/malformed JSON/);
    const inner = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.fullname" . }}
`;
    expect(() => parseManifestText(inner, 't.yaml')).toThrow(/t\.yaml:4: an unrendered Helm template/);
  });

  it("keeps Go templates of real manifests (alert texts with {{ $labels.x }}) readable, without a Helm diagnosis", () => {
    const rule = `apiVersion: v1
kind: ConfigMap
metadata: {name: rules}
data:
  summary: "{{ $labels.instance }} is down"
`;
    expect(parseManifestText(rule, 'rules.yaml').warnings).toEqual([]);
  });

  it("never lets the yaml library's \"Keys with collection values will be stringified\" warning leak; casdoctor's own has file:line", () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const parsed = parseManifestText(
        `apiVersion: v1
kind: ConfigMap
metadata:
  name: odd
data:
  ? [a, b]
  : c
`,
        'odd.yaml',
      );
      expect(spy).not.toHaveBeenCalled();
      expect(parsed.warnings).toEqual([expect.stringMatching(/^odd\.yaml:6: a mapping key that is itself a mapping or list/)]);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('PDBs for pods an operator creates from resources among the inputs', () => {
  // kube-prometheus style (written here): a Prometheus resource with podMetadata labels, and its PDB
  const prometheus = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'Prometheus',
    metadata: { name: 'k8s', namespace: 'monitoring' },
    spec: {
      replicas: 2,
      podMetadata: {
        labels: {
          'app.kubernetes.io/component': 'prometheus',
          'app.kubernetes.io/part-of': 'kube-prometheus',
        },
      },
    },
  };
  const pdb = (name: string, matchLabels: Record<string, string>) => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'monitoring' },
    spec: { minAvailable: 1, selector: { matchLabels } },
  });

  it('does not call a PDB for Prometheus pods "matches nothing"; the notes name them as operator-managed', () => {
    const r = preflightRun(
      yamlStream(
        deployment('api'),
        prometheus,
        pdb('prometheus-k8s', {
          'app.kubernetes.io/component': 'prometheus',
          'app.kubernetes.io/instance': 'k8s',
          'app.kubernetes.io/name': 'prometheus',
          'app.kubernetes.io/part-of': 'kube-prometheus',
        }),
      ),
    );
    expect(r.of('pdb-matches-nothing')).toEqual([]);
    expect(preflightOf(r.analysis)?.notes.join('\n')).toMatch(
      /PodDisruptionBudget monitoring\/prometheus-k8s selects operator-managed pods \(from Prometheus monitoring\/k8s, made by the prometheus-operator\)/,
    );
  });

  it('still reports a PDB whose selector matches neither a workload nor an operator resource', () => {
    const r = preflightRun(yamlStream(deployment('api'), prometheus, pdb('typo', { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'k9s' })));
    expect(r.of('pdb-matches-nothing')).toHaveLength(1);
  });
});

describe("preflight runs CA's configuration checks on a CA Deployment among the manifests", () => {
  const caDeployment = (discoveryArg: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'cluster-autoscaler', namespace: 'kube-system', labels: { app: 'cluster-autoscaler' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'cluster-autoscaler' } },
      template: {
        metadata: { labels: { app: 'cluster-autoscaler' } },
        spec: {
          priorityClassName: 'system-cluster-critical',
          serviceAccountName: 'cluster-autoscaler',
          containers: [
            {
              name: 'cluster-autoscaler',
              image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
              resources: { requests: { cpu: '100m', memory: '600Mi' } },
              command: ['./cluster-autoscaler', '--v=4', '--cloud-provider=aws', '--expander=least-waste', discoveryArg],
            },
          ],
        },
      },
    },
  });

  it('rejects --nodes={{ … }} as CA would at start-up, with the parse error said once', () => {
    const r = preflightRun(yamlStream(caDeployment('--nodes={{ node_asg_min }}:{{ node_asg_max }}:{{ name }}'), deployment('api')));
    const [f] = r.of('ca-config-invalid');
    expect(f.message).toMatch(/failed to parse node group spec: failed to set min size: \{\{ node_asg_min \}\}, expected integer/);
    expect(f.message).not.toMatch(/failed to parse node group spec: failed to parse node group spec/);
    expect(r.of('discovery-spec-invalid')).toEqual([]);
  });

  it('flags a <YOUR CLUSTER NAME> placeholder and says once that CA manages no group, instead of every workload unplaceable', () => {
    const r = preflightRun(
      yamlStream(
        caDeployment('--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<YOUR CLUSTER NAME>'),
        deployment('api'),
        deployment('worker'),
      ),
    );
    expect(r.of('discovery-spec-invalid').map((f) => f.message)).toEqual([
      expect.stringMatching(/still holds the placeholder <YOUR CLUSTER NAME>: CA looks for that tag literally/),
    ]);
    const unplaceable = r.of('workload-unplaceable');
    expect(unplaceable).toHaveLength(1);
    expect(unplaceable[0].subject).toMatchObject({ kind: 'Deployment', name: 'cluster-autoscaler', namespace: 'kube-system' });
    expect(unplaceable[0].message).toMatch(/manage none of the 3 node group\(s\)/);
  });
  it("leaves the cluster's own CA Deployment (--live/--from) to why-pending: preflight judges what the change ships", () => {
    const raw = emptyInputs();
    raw.deployments = [caDeployment('--nodes={{ node_asg_min }}:{{ node_asg_max }}:{{ name }}') as never];
    raw.provided.add('deployments');
    const r = preflightRun(yamlStream(deployment('api')), { cluster: { raw, via: 'from' } });
    expect(preflightOf(r.analysis)?.caConfigSource).toBe('cluster');
    expect(r.of('ca-config-invalid')).toEqual([]);
  });
});

describe('cosmetics users see', () => {
  it('prints no internal "[unverified …]" note', () => {
    const g = parseEksctlConfig(
      `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: dev, region: us-west-2}
managedNodeGroups:
  - name: tainted
    instanceType: m5.large
    taints: [{key: dedicated, effect: NoSchedule}]
`,
      'c.yaml',
    ).groups[0];
    expect(g.notes.join('\n')).not.toMatch(/\[unverified/);
  });

  it('writes an absolute -f path as a file:// URI in SARIF', async () => {
    const { defaultUri } = await import('../../src/report/sarif.js');
    expect(defaultUri('/home/ci/repo/k8s/api deployment.yaml')).toBe('file:///home/ci/repo/k8s/api%20deployment.yaml');
    expect(defaultUri('C:\\work\\k8s\\api.yaml')).toBe('file:///C:/work/k8s/api.yaml');
    expect(defaultUri('./k8s/api.yaml')).toBe('k8s/api.yaml');
  });
});

describe('static provisioning by selector (a class-less claim and its PV in the same manifests)', () => {
  it('binds a claim with storage-class "" to the PV its selector, access modes and size match', () => {
    const pv = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'shared-files', labels: { usage: 'shared-files' } },
      spec: {
        capacity: { storage: '10Gi' },
        accessModes: ['ReadWriteMany'],
        persistentVolumeReclaimPolicy: 'Retain',
        nfs: { server: '10.0.0.12', path: '/exports/shared' },
      },
    };
    const pvc = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'shared', namespace: 'web', annotations: { 'volume.beta.kubernetes.io/storage-class': '' } },
      spec: {
        accessModes: ['ReadWriteMany'],
        resources: { requests: { storage: '10Gi' } },
        selector: { matchLabels: { usage: 'shared-files' } },
      },
    };
    const pod = deployment('files', { spec: { volumes: [{ name: 'f', persistentVolumeClaim: { claimName: 'shared' } }] } });
    expect(preflightRun(yamlStream(pv, pvc, pod)).of('workload-unplaceable')).toEqual([]);
    // without the PV among the inputs the claim is unknown: not evaluated, not "unbound immediate"
    const r = preflightRun(yamlStream(pvc, pod));
    expect(r.of('workload-unplaceable')).toEqual([]);
  });
});
