// The fix rule (src/checks/lib/fix-safety.ts): every check runs on every example, and on variants built to make the
// template-tag fixes fire, and each printed fix must pass the rule.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/checks/lib/engine.js';
import { defineCheck } from '../../src/checks/define-check.js';
import { tagCommand } from '../../src/checks/lib/support.js';
import { remedyText } from '../../src/providers/types.js';
import { applyFixRule, fixViolations, resourceEvidence, systemLabelOwner, templateTagEdits } from '../../src/checks/lib/fix-safety.js';
import { CHECKS } from '../../src/checks/index.js';
import type { CommandName } from '../../src/checks/define-check.js';
import type { Finding } from '../../src/model/findings.js';
import { isPendingCandidate, type Pod } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { loadOffline } from '../../src/gather/offline.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { STATIC_TYPES } from './harness.js';

const root = join(import.meta.dirname, '..', '..', 'examples');
const EXAMPLES: Array<[name: string, now: string]> = [
  ['demo', '2026-11-21T10:00:00Z'],
  ['karpenter', '2026-11-24T14:00:00Z'],
  ['externalgrpc', '2026-11-21T10:00:00Z'],
];
const COMMANDS: CommandName[] = ['why-pending', 'asg-audit', 'scale-down-blockers'];

const raws = new Map<string, RawInputs>();
beforeAll(async () => {
  for (const [name] of EXAMPLES) raws.set(name, await loadOffline([join(root, name)]));
});

function run(raw: RawInputs, now: string): { analysis: Analysis; findings: Finding[] } {
  const findings: Finding[] = [];
  let analysis!: Analysis;
  for (const command of COMMANDS) {
    analysis = new Analysis(raw, { now: new Date(now), staticInstanceTypes: STATIC_TYPES, podScope: isPendingCandidate });
    findings.push(...runChecks(CHECKS, analysis, command).findings);
  }
  return { analysis, findings };
}

function violations(raw: RawInputs, now: string): string[] {
  const { analysis, findings } = run(raw, now);
  // the engine withholds a fix that breaks the rule: a check that printed one shows here as a withheld fix
  return findings.flatMap((f) => [
    ...fixViolations(analysis, f).map((v) => `${f.checkId} ${f.subject.name}: ${v}`),
    ...(f.remediation?.startsWith('casdoctor withheld') ? [`${f.checkId} ${f.subject.name}: the engine withheld its fix`] : []),
  ]);
}

/** A Pending pod of Deployment web/pick (its ReplicaSet need not exist: the checks read the pod). */
function pendingPod(name: string, spec: Partial<Pod['spec']>, cpu = '500m'): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'web', uid: `uid-${name}`, creationTimestamp: '2026-11-21T09:40:00Z' },
    spec: {
      containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu, memory: '512Mi' } } }],
      ...spec,
    },
    status: {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: "0/9 nodes are available: 9 node(s) didn't match Pod's node affinity/selector.",
          lastTransitionTime: '2026-11-21T09:40:01Z',
        },
      ],
    },
  } as Pod;
}

function withPods(raw: RawInputs, ...pods: Pod[]): RawInputs {
  return { ...raw, pods: [...raw.pods, ...pods] };
}

describe('the fix rule', () => {
  it('knows who sets the well-known labels, and leaves the operator its own', () => {
    for (const k of [
      'topology.kubernetes.io/zone',
      'node.kubernetes.io/instance-type',
      'kubernetes.io/arch',
      'kubernetes.io/hostname',
      'karpenter.sh/nodepool',
      'karpenter.k8s.aws/instance-family',
      'eks.amazonaws.com/nodegroup',
      'topology.ebs.csi.aws.com/zone',
      'topology.k8s.aws/zone-id',
    ])
      expect(systemLabelOwner(k), k).toBeDefined();
    for (const k of ['node-pool', 'node-role.kubernetes.io/worker', 'node-restriction.kubernetes.io/pci', 'shop.example.com/team'])
      expect(systemLabelOwner(k), k).toBeUndefined();
  });

  it('reads the template tags of a printed aws command', () => {
    expect(
      templateTagEdits(
        'tell CA:\n  aws autoscaling create-or-update-tags --tags ResourceId=g1,ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/node-template/label/topology.kubernetes.io/zone,Value=us-east-1c,PropagateAtLaunch=false',
      ),
    ).toEqual([{ group: 'g1', kind: 'label', key: 'topology.kubernetes.io/zone', value: 'us-east-1c' }]);
  });

  it('gives a GPU only to instance types that have one (the g6f the table undercounts, not an m5)', () => {
    const a = new Analysis(raws.get('karpenter')!, { now: new Date('2026-11-24T14:00:00Z'), staticInstanceTypes: STATIC_TYPES });
    const legacy = a.nodeGroups.find((g) => g.name === 'shop-prod-legacy')!;
    expect(resourceEvidence(a, legacy, 'nvidia.com/gpu').ok).toBe(false);
    expect(resourceEvidence(a, legacy, 'cpu').ok).toBe(true);
    const d = new Analysis(raws.get('demo')!, { now: new Date('2026-11-21T10:00:00Z'), staticInstanceTypes: STATIC_TYPES });
    const gpu = d.nodeGroups.find((g) => g.name === 'demo-gpu')!;
    expect(resourceEvidence(d, gpu, 'nvidia.com/gpu').ok).toBe(true);
    expect(resourceEvidence(d, gpu, 'amd.com/gpu').ok).toBe(false);
  });

  it('never gives an AMD (g4ad) group nvidia.com/gpu: its device plugin advertises amd.com/gpu', () => {
    const raw = raws.get('demo')!;
    const gpuLt = raw.autoScalingGroups.find((x) => x.AutoScalingGroupName === 'demo-gpu')!.LaunchTemplate!.LaunchTemplateId;
    const amdRaw: RawInputs = {
      ...raw,
      launchTemplateVersions: raw.launchTemplateVersions.map((v) =>
        v.LaunchTemplateId === gpuLt ? { ...v, LaunchTemplateData: { ...v.LaunchTemplateData, InstanceType: 'g4ad.xlarge' } } : v,
      ),
    };
    const a = new Analysis(amdRaw, { now: new Date('2026-11-21T10:00:00Z'), staticInstanceTypes: STATIC_TYPES });
    const g = a.nodeGroups.find((x) => x.name === 'demo-gpu')!;
    expect(a.template(g).instanceType).toBe('g4ad.xlarge');
    expect(resourceEvidence(a, g, 'amd.com/gpu').ok).toBe(true);
    expect(resourceEvidence(a, g, 'nvidia.com/gpu').ok).toBe(false);
  });

  for (const [name, now] of EXAMPLES) {
    it(`every fix printed for examples/${name} passes`, () => {
      expect(violations(raws.get(name)!, now)).toEqual([]);
    });
  }

  it('a pod selecting a zone, an instance type or a Karpenter label gets no tag for them', () => {
    const raw = withPods(
      raws.get('demo')!,
      pendingPod('zonal', { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1f' } }),
      pendingPod('typed', { nodeSelector: { 'node.kubernetes.io/instance-type': 'm7i.large' } }),
      pendingPod('karp', { nodeSelector: { 'karpenter.sh/nodepool': 'general' } }),
      pendingPod('mixed', { nodeSelector: { 'node-pool': 'batch', 'kubernetes.io/arch': 'arm64' } }),
    );
    const { analysis, findings } = run(raw, '2026-11-21T10:00:00Z');
    const mine = findings.filter((f) => f.checkId === 'pod-node-selector-mismatch' && f.subject.namespace === 'web');
    expect(mine.map((f) => f.subject.name).sort()).toEqual(['karp', 'mixed', 'typed', 'zonal']);
    for (const f of mine) expect(fixViolations(analysis, f)).toEqual([]);
    const zonal = mine.find((f) => f.subject.name === 'zonal')!;
    expect(zonal.remediation).toContain('topology.kubernetes.io/zone is set by the cloud provider');
    expect(zonal.remediation).not.toContain('node-template/label/topology');
    expect(mine.find((f) => f.subject.name === 'karp')!.remediation).toContain("asks for Karpenter's nodes");
  });

  it('a GPU pod that selects a group without GPUs is told to use a GPU instance type, never to tag the group', () => {
    // demo-batch (c5.2xlarge, min 0) is the group a pod selecting only linux nodes lands on from zero
    const gpuPod = pendingPod('embedder', { nodeSelector: { 'kubernetes.io/os': 'linux' } });
    gpuPod.spec.containers[0].resources = { requests: { cpu: '1', memory: '2Gi', 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } };
    const { analysis, findings } = run(withPods(raws.get('demo')!, gpuPod), '2026-11-21T10:00:00Z');
    const gpu = findings.filter((f) => f.checkId === 'template-gpu-mismatch' && f.nodeGroup === 'demo-batch');
    expect(gpu).toHaveLength(1);
    expect(gpu[0].remediation).toMatch(/^Do not tag demo-batch with nvidia\.com\/gpu: c5\.2xlarge has no nvidia\.com\/gpu/);
    for (const f of findings) expect(fixViolations(analysis, f), f.checkId).toEqual([]);
  });

  it('a zone another group is in names that group instead', () => {
    const raw = withPods(raws.get('demo')!, pendingPod('zonal-b', { nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1c' } }, '3'));
    const f = run(raw, '2026-11-21T10:00:00Z').findings.find(
      (x) => x.checkId === 'pod-node-selector-mismatch' && x.subject.name === 'zonal-b',
    );
    // demo-stateful spans us-east-1a..c: CA's template is in the first, so it fails the selector, yet its nodes can be in 1c
    expect(f?.remediation ?? '').toMatch(/Node groups where topology\.kubernetes\.io\/zone=us-east-1c is true of some nodes: demo-stateful;.*an ASG in us-east-1c only/);
  });
});

describe('the fix rule in the engine', () => {
  /** A check that prints the fixes it is given, as a careless check would: the engine must hold each to the rule. */
  function planted(fixes: Array<{ group: string; remediation: string }>) {
    return defineCheck({
      meta: {
        id: 'planted-fix',
        title: 'a check that prints what it is given',
        summary: 's',
        severity: 'warning',
        commands: ['asg-audit', 'preflight'],
        requires: [],
        messages: { m: 'Node group {group} needs a fix.' },
      },
      run(ctx) {
        for (const f of fixes)
          ctx.report({ messageId: 'm', data: { group: f.group }, subject: { kind: 'AutoScalingGroup', name: f.group }, nodeGroup: f.group, evidence: [], remediation: f.remediation });
      },
    });
  }
  const demo = () => new Analysis(raws.get('demo')!, { now: new Date('2026-11-21T10:00:00Z'), staticInstanceTypes: STATIC_TYPES });

  it('withholds a zone label tag and names the groups where the zone is true instead', () => {
    const zoneTag = `Tag the group:\n  ${tagCommand('demo-gpu', 'k8s.io/cluster-autoscaler/node-template/label/topology.kubernetes.io/zone', 'us-east-1c')}`;
    const a = demo();
    for (const command of ['asg-audit', 'preflight'] as const) {
      const [f] = runChecks([planted([{ group: 'demo-gpu', remediation: zoneTag }])], a, command).findings;
      expect(f.remediation).toMatch(/^casdoctor withheld the fix this check printed: .*label topology\.kubernetes\.io\/zone=us-east-1c on demo-gpu: topology\.kubernetes\.io\/zone is set by the cloud provider/);
      expect(f.remediation).toContain('Node groups where topology.kubernetes.io/zone=us-east-1c is true of some nodes: demo-stateful');
      expect(f.remediation).not.toContain('create-or-update-tags');
      expect(fixViolations(a, f)).toEqual([]);
    }
  });

  it('withholds a GPU tag for an instance type without GPUs, and keeps it for one that has them', () => {
    const gpu = (group: string) => `Tag the group:\n  ${tagCommand(group, 'k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu', '1')}`;
    const findings = runChecks([planted([{ group: 'demo-databases', remediation: gpu('demo-databases') }, { group: 'demo-gpu', remediation: gpu('demo-gpu') }])], demo(), 'asg-audit').findings;
    const byGroup = new Map(findings.map((f) => [f.nodeGroup, f.remediation]));
    expect(byGroup.get('demo-databases')).toMatch(/^casdoctor withheld .*r5\.2xlarge has no nvidia\.com\/gpu.*\nA nvidia\.com\/gpu template entry on demo-databases would make CA launch its nodes for pods they cannot hold/s);
    expect(byGroup.get('demo-gpu')).toBe(gpu('demo-gpu'));
  });

  it("keeps a tag for a group whose template is a real node, and adds that CA ignores it while the group has a Ready node", () => {
    const a = demo();
    const taint = `Tag the group:\n  ${tagCommand('demo-general', 'k8s.io/cluster-autoscaler/node-template/taint/dedicated', 'web:NoSchedule')}`;
    const [f] = runChecks([planted([{ group: 'demo-general', remediation: taint }])], a, 'asg-audit').findings;
    const node = a.template(a.nodeGroups.find((g) => g.name === 'demo-general')!).fromNode!;
    expect(f.remediation).toBe(`${taint}\nCA builds demo-general's template from its node ${node}, so it ignores the tag while the group has a Ready node, and after the group reaches zero until CA restarts (it keeps the last node's copy).`);
    expect(fixViolations(a, f)).toEqual([]);
  });

  it("reads externalgrpc's nodeTemplate edits too: a zone label there is withheld", () => {
    const a = new Analysis(raws.get('externalgrpc')!, { now: new Date('2026-11-21T10:00:00Z'), staticInstanceTypes: STATIC_TYPES });
    const gpu = a.nodeGroups.find((g) => g.name === 'gpu')!;
    const remedy = remedyText(a.provider.setTemplateLabels([{ group: gpu, key: 'topology.kubernetes.io/zone', value: 'ap-guangzhou-7' }], a.providerContext));
    expect(remedy).toContain('nodeTemplate.labels: "topology.kubernetes.io/zone": "ap-guangzhou-7"');
    const f = applyFixRule(a, { checkId: 'x', severity: 'warning', subject: { kind: 'NodeGroup', name: 'gpu' }, message: 'm', evidence: [], docsUrl: '', remediation: remedy });
    expect(f.remediation).toMatch(/^casdoctor withheld .*label topology\.kubernetes\.io\/zone=ap-guangzhou-7 on gpu/);
    const custom = remedyText(a.provider.setTemplateLabels([{ group: gpu, key: 'workload', value: 'inference' }], a.providerContext));
    expect(applyFixRule(a, { ...f, remediation: custom }).remediation).toBe(custom);
  });
});
