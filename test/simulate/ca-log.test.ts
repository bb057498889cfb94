import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CaLogSummary } from '../../src/model/ca-log.js';
import {
  CA_LOG_TEMPLATES,
  createCaLogParser,
  normalizeCaLogMessage,
  parseEnvelope,
  splitReasons,
} from '../../src/simulate/ca-log/index.js';

const NOW = new Date('2026-11-21T10:00:00Z');

function parse(lines: string[], now: Date = NOW): CaLogSummary {
  const p = createCaLogParser({ source: { kind: 'text', name: 'test' }, now });
  for (const l of lines) p.push(l);
  return p.finish();
}

interface Case {
  template: string;
  /** CA version the line was printed by (from the upstream issue or the tag it was checked against). */
  ca: string;
  /** Where the line's shape comes from. */
  from: string;
  lines: string[];
  expected: (s: CaLogSummary) => void;
}

// Real lines from kubernetes/autoscaler issues where one exists (names shortened as in the thread), else written in the
// exact shape of the format string at the tag named in `from`.
const CASES: Case[] = [
  {
    template: 'starting-main-loop',
    ca: '1.32.1',
    from: 'core/static_autoscaler.go:274 at 1.32.1',
    lines: ['I1121 09:59:42.104117       1 static_autoscaler.go:274] Starting main loop', 'I1121 09:59:52.118342       1 static_autoscaler.go:274] Starting main loop'],
    expected: (s) =>
      expect(s.mainLoop).toEqual({
        signal: 'starting-main-loop',
        count: 2,
        first: '2026-11-21T09:59:42.104Z',
        last: '2026-11-21T09:59:52.118Z',
        maxGapMs: 10_014,
        maxGapEndedAt: '2026-11-21T09:59:52.118Z',
        sinceLastLoopMs: 0,
      }),
  },
  {
    template: 'version',
    ca: '1.28.0-beta.0',
    from: 'FAQ.md "How Can I change the log format"',
    lines: ['I0823 17:15:11.472183   29944 main.go:569] Cluster Autoscaler 1.28.0-beta.0'],
    expected: (s) => expect(s.version).toEqual({ version: '1.28.0-beta.0', time: '2026-08-23T17:15:11.472Z' }),
  },
  {
    template: 'predicate-error-1.32',
    ca: '1.32.1',
    from: 'issue #8341',
    lines: [
      'I0721 11:10:41.153458 1 orchestrator.go:588] Pod ml/trainer-0 can\'t be scheduled on eks-gpu-a10-2c9b7f1e, predicate checking error: can\'t schedule pod ml/trainer-0: predicate "NodeAffinity" didn\'t pass (predicateReasons=[node(s) didn\'t match Pod\'s node affinity/selector]; debugInfo=nodeName: "template-node-for-eks-gpu-a10-2c9b7f1e-5577006791947779410")',
    ],
    expected: (s) =>
      expect(s.predicateFailures).toMatchObject([
        {
          pod: 'ml/trainer-0',
          namespace: 'ml',
          name: 'trainer-0',
          group: 'eks-gpu-a10-2c9b7f1e',
          plugin: 'NodeAffinity',
          reasons: ["node(s) didn't match Pod's node affinity/selector"],
          templateNode: 'template-node-for-eks-gpu-a10-2c9b7f1e-5577006791947779410',
          count: 1,
          lastSeen: '2026-07-21T11:10:41.153Z',
        },
      ]),
  },
  {
    template: 'predicate-error-1.32',
    ca: '1.32.1',
    from: 'simulator/clustersnapshot/predicate/plugin_runner.go failingFilterDebugInfo at 1.32.1',
    lines: [
      'I1121 09:59:52.129870       1 orchestrator.go:588] Pod ml/inference-dq6zpx2jv2-6v8wc can\'t be scheduled on demo-gpu, predicate checking error: can\'t schedule pod ml/inference-dq6zpx2jv2-6v8wc: predicate "NodeResourcesFit" didn\'t pass (predicateReasons=[Insufficient nvidia.com/gpu, Insufficient cpu]; debugInfo=nodeName: "template-node-for-demo-gpu-8674665223082153551")',
      'I1121 09:59:52.130004       1 orchestrator.go:588] Pod ml/inference-dq6zpx2jv2-6v8wc can\'t be scheduled on demo-databases, predicate checking error: can\'t schedule pod ml/inference-dq6zpx2jv2-6v8wc: predicate "TaintToleration" didn\'t pass (predicateReasons=[node(s) had untolerated taint {dedicated: databases}]; debugInfo=nodeName: "template-node-for-demo-databases-6129484611666145821", nodeTaints: []v1.Taint{v1.Taint{Key:"dedicated", Value:"databases", Effect:"NoSchedule", TimeAdded:<nil>}})',
    ],
    expected: (s) => {
      expect(s.predicateFailures.map((f) => [f.group, f.plugin, f.reasons])).toEqual([
        ['demo-databases', 'TaintToleration', ['node(s) had untolerated taint {dedicated: databases}']],
        ['demo-gpu', 'NodeResourcesFit', ['Insufficient nvidia.com/gpu', 'Insufficient cpu']],
      ]);
      expect(s.predicateFailures[0].debugInfo).toContain('nodeTaints: []v1.Taint{v1.Taint{Key:"dedicated"');
    },
  },
  {
    template: 'predicate-error-1.28',
    ca: '1.30.0',
    from: 'simulator/predicatechecker/error.go VerboseMessage + schedulerbased.go buildDebugInfo at 1.30.0',
    lines: [
      'I0412 08:15:02.771204       1 orchestrator.go:565] Pod web/frontend-5d8f7c9b4-k2x7p can\'t be scheduled on eks-db-4ac1, predicate checking error: node(s) had untolerated taint {dedicated: databases}; predicateName=TaintToleration; reasons: node(s) had untolerated taint {dedicated: databases}; debugInfo=taints on node: []v1.Taint{v1.Taint{Key:"dedicated", Value:"databases", Effect:"NoSchedule", TimeAdded:<nil>}}',
    ],
    expected: (s) =>
      expect(s.predicateFailures).toMatchObject([
        {
          pod: 'web/frontend-5d8f7c9b4-k2x7p',
          group: 'eks-db-4ac1',
          plugin: 'TaintToleration',
          reasons: ['node(s) had untolerated taint {dedicated: databases}'],
          debugInfo: 'taints on node: []v1.Taint{v1.Taint{Key:"dedicated", Value:"databases", Effect:"NoSchedule", TimeAdded:<nil>}}',
          template: 'predicate-error-1.28',
        },
      ]),
  },
  {
    template: 'predicate-error-1.18',
    ca: '≤1.26',
    from: 'issue #6086',
    lines: [
      "I0905 09:35:59.101748 1 scale_up.go:93] Pod cluster-over-provisioner-7c9d6b5f4-wc98j can't be scheduled on eks-node-mixed-spot-1-20230901, predicate checking error: node(s) didn't match Pod's node affinity/selector; predicateName=NodeAffinity; reasons: node(s) didn't match Pod's node affinity/selector; debugInfo=",
    ],
    expected: (s) =>
      expect(s.predicateFailures).toEqual([
        expect.objectContaining({
          pod: 'cluster-over-provisioner-7c9d6b5f4-wc98j',
          namespace: undefined,
          group: 'eks-node-mixed-spot-1-20230901',
          plugin: 'NodeAffinity',
          reasons: ["node(s) didn't match Pod's node affinity/selector"],
          debugInfo: undefined,
        }),
      ]),
  },
  {
    template: 'predicate-failed-legacy',
    ca: '~1.2',
    from: 'issue #1291',
    lines: [
      "I1002 11:03:26.503432 1 utils.go:196] Pod myapp-server-0 can't be scheduled on nodes.prod.example.com, predicate failed: GeneralPredicates predicate mismatch, cannot put production/myapp-server-0 on template-node-for-nodes.prod.example.com-7085033211816415489, reason: node(s) didn't match node selector",
    ],
    expected: (s) =>
      expect(s.predicateFailures).toMatchObject([
        {
          name: 'myapp-server-0',
          group: 'nodes.prod.example.com',
          plugin: 'GeneralPredicates',
          reasons: ["node(s) didn't match node selector"],
          templateNode: 'template-node-for-nodes.prod.example.com-7085033211816415489',
        },
      ]),
  },
  {
    template: 'similar-pods',
    ca: '1.32.1',
    from: 'core/scaleup/orchestrator/orchestrator.go:590 at 1.32.1',
    lines: [
      'I1121 09:59:52.131402       1 orchestrator.go:588] Pod batch/report-builder-rcn64q4v2c-rgnzf can\'t be scheduled on demo-batch, predicate checking error: can\'t schedule pod batch/report-builder-rcn64q4v2c-rgnzf: predicate "NodeAffinity" didn\'t pass (predicateReasons=[node(s) didn\'t match Pod\'s node affinity/selector]; debugInfo=nodeName: "template-node-for-demo-batch-4037200794235010051")',
      'I1121 09:59:52.131502       1 orchestrator.go:590] 2 other pods similar to report-builder-rcn64q4v2c-rgnzf can\'t be scheduled on demo-batch',
    ],
    expected: (s) => expect(s.predicateFailures).toMatchObject([{ pod: 'batch/report-builder-rcn64q4v2c-rgnzf', group: 'demo-batch', similarPods: 2 }]),
  },
  {
    template: 'pod-is-unschedulable',
    ca: '1.32.1',
    from: 'core/scaleup/orchestrator/orchestrator.go:98 at 1.32.1 (klogx)',
    lines: ['I1121 09:59:52.223205       1 klogx.go:87] Pod databases/orders-pg-0 is unschedulable', 'I1121 09:59:42.223205       1 klogx.go:87] Pod databases/orders-pg-0 is unschedulable'],
    expected: (s) => expect(s.unschedulablePods).toEqual([{ pod: 'databases/orders-pg-0', count: 2, firstSeen: '2026-11-21T09:59:42.223Z', lastSeen: '2026-11-21T09:59:52.223Z' }]),
  },
  {
    template: 'pod-can-be-moved',
    ca: '1.3x',
    from: 'Project-HAMi/HAMi#1099',
    lines: ['I0605 16:34:58.905568 1 klogx.go:87] Pod default/gpu-pod-11 can be moved to ip-100-64-100-113.us-west-2.compute.internal'],
    expected: (s) => expect(s.podMoves).toMatchObject([{ pod: 'default/gpu-pod-11', node: 'ip-100-64-100-113.us-west-2.compute.internal', count: 1 }]),
  },
  {
    template: 'pods-can-be-scheduled',
    ca: '1.3x / 1.37',
    from: 'Project-HAMi/HAMi#1099; filter_out_schedulable.go:147 on release-1.37',
    lines: [
      'I0605 16:34:58.905597 1 filter_out_schedulable.go:120] 1 pods marked as unschedulable can be scheduled.',
      'I0605 16:35:08.911020 1 filter_out_schedulable.go:147] 3 pods marked as unschedulable can be scheduled. 2 pods were skipped due to exceeding pending pod batching timeout.',
    ],
    expected: (s) => expect(s.schedulableFiltered).toEqual({ pods: 3, count: 2, firstSeen: '2026-06-05T16:34:58.905Z', lastSeen: '2026-06-05T16:35:08.911Z' }),
  },
  {
    template: 'no-pod-can-fit',
    ca: '~1.2',
    from: 'issue #1291',
    lines: ['I1002 11:03:26.503455 1 scale_up.go:371] No pod can fit to nodes.prod.example.com'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'nodes.prod.example.com', noPodFits: { count: 1 } }]),
  },
  {
    template: 'skip-max-size',
    ca: '1.32.1',
    from: 'core/scaleup/orchestrator/orchestrator.go:413 at 1.32.1',
    lines: ['I1121 09:59:52.125106       1 orchestrator.go:413] Skipping node group demo-spot - max size reached'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'demo-spot', skipped: { reason: 'max size reached', count: 1 } }]),
  },
  {
    template: 'skip-resource-limit',
    ca: '1.32.1',
    from: 'core/scaleup/orchestrator/orchestrator.go:646 at 1.32.1',
    lines: ['I1121 09:59:52.125340       1 orchestrator.go:646] Skipping node group demo-batch; maximal limit exceeded for [cpu]'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'demo-batch', skipped: { reason: 'maximal limit exceeded for [cpu]' } }]),
  },
  {
    template: 'group-not-ready',
    ca: '1.28.2 / 1.32.1',
    from: 'issue #6128; orchestrator.go:626 at 1.32.1',
    lines: [
      'W0313 12:50:01.422358 1 orchestrator.go:582] Node group eks-mli_inference_g4dn4xl-20240313 is not ready for scaleup - backoff',
      'W1121 09:59:52.125512       1 orchestrator.go:626] Node group demo-gpu is not ready for scaleup - backoff with status: {true {CloudProviderError AccessDenied failed to increase node group size}}',
    ],
    expected: (s) =>
      expect(s.groups).toMatchObject([
        { group: 'demo-gpu', notReady: { reason: 'backoff', status: '{true {CloudProviderError AccessDenied failed to increase node group size}}' } },
        { group: 'eks-mli_inference_g4dn4xl-20240313', notReady: { reason: 'backoff', status: undefined } },
      ]),
  },
  {
    template: 'no-expansion-options',
    ca: '~1.2',
    from: 'issue #1291',
    lines: ['I1002 11:03:26.503465 1 scale_up.go:376] No expansion options'],
    expected: (s) => expect(s.health).toMatchObject([{ kind: 'no-expansion-options', count: 1 }]),
  },
  {
    template: 'waste',
    ca: '1.2x',
    from: 'issue #4252',
    lines: ['I0811 07:24:11.204872 1 waste.go:57] Expanding Node Group eks-workernode-asg-name-az1-devqa would waste 50.00% CPU, 100.00% Memory, 75.00% Blended'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'eks-workernode-asg-name-az1-devqa', waste: { cpuPct: 50, memoryPct: 100, blendedPct: 75 } }]),
  },
  {
    template: 'best-option',
    ca: '1.2x',
    from: 'issue #4252',
    lines: ['I0811 07:24:11.204907 1 scale_up.go:456] Best option to resize: eks-workernode-asg-name-az2-devqa'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'eks-workernode-asg-name-az2-devqa', bestOption: { count: 1, lastSeen: '2026-08-11T07:24:11.204Z' } }]),
  },
  {
    template: 'priority-expander-pick',
    ca: '1.32.1',
    from: 'expander/priority/priority.go:163 at 1.32.1',
    lines: ['I1121 09:11:52.203801       1 priority.go:163] priority expander: demo-general chosen as the highest available'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'demo-general', priorityPick: { count: 1 } }]),
  },
  {
    template: 'priority-expander-config-invalid',
    ca: '1.32.1',
    from: 'awsdocs/amazon-eks-user-guide#315 (event text); priority.go:87 klog.Warning at 1.32.1',
    lines: [
      'W1121 09:11:52.203700       1 priority.go:87] Wrong configmap for priority expander, doesn\'t contain priorities key. Ignoring update.',
      "W1121 09:12:02.203700       1 priority.go:87] Wrong configuration for priority expander: Can't parse YAML with priorities in the configmap: yaml: line 2: did not find expected key. Ignoring update.",
    ],
    expected: (s) => expect(s.health).toMatchObject([{ kind: 'priority-expander-config-invalid', count: 2, lastMessage: expect.stringContaining("Can't parse YAML") }]),
  },
  {
    template: 'estimated-nodes',
    ca: '1.32.1',
    from: 'core/scaleup/orchestrator/orchestrator.go:189 at 1.32.1',
    lines: ['I1121 09:11:52.203987       1 orchestrator.go:189] Estimated 1 nodes needed in demo-general'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'demo-general', estimate: { nodes: 1 } }]),
  },
  {
    template: 'final-scale-up-plan',
    ca: '1.32.1',
    from: 'orchestrator.go:254 + processors/nodegroupset ScaleUpInfo.String() at 1.32.1',
    lines: ['I1121 09:11:52.204117       1 orchestrator.go:254] Final scale-up plan: [{demo-general 3->4 (max: 10)} {demo-general-b 2->3 (max: 10)}]'],
    expected: (s) =>
      expect(s.plans).toEqual([
        {
          time: '2026-11-21T09:11:52.204Z',
          groups: [
            { group: 'demo-general', from: 3, to: 4, max: 10 },
            { group: 'demo-general-b', from: 2, to: 3, max: 10 },
          ],
        },
      ]),
  },
  {
    template: 'scale-up-set-size',
    ca: '1.28.2',
    from: 'issue #6128',
    lines: ['I0313 12:34:34.470823 1 executor.go:147] Scale-up: setting group eks-mli_inference_g4dn4xl-20240313 size to 7'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'eks-mli_inference_g4dn4xl-20240313', scaleUp: { size: 7 } }]),
  },
  {
    template: 'aws-set-asg-size',
    ca: '1.28.2',
    from: 'issue #6128',
    lines: ['I0313 12:34:34.470926 1 auto_scaling_groups.go:265] Setting asg eks-mli_inference_g4dn4xl-20240313 size to 7'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'eks-mli_inference_g4dn4xl-20240313', setAsgSize: { size: 7 } }]),
  },
  {
    template: 'scale-up-timed-out',
    ca: '1.28.2',
    from: 'issue #6128',
    lines: ['W0313 12:49:40.563382 1 clusterstate.go:266] Scale-up timed out for node group eks-mli_inference_g4dn4xl-20240313 after 15m5.500491908s'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'eks-mli_inference_g4dn4xl-20240313', timeout: { after: '15m5.500491908s' } }]),
  },
  {
    template: 'disabling-scale-up',
    ca: '1.28.2',
    from: 'issue #6128',
    lines: [
      'W0313 12:49:40.584456 1 clusterstate.go:297] Disabling scale-up for node group eks-mli_inference_g4dn4xl-20240313 until 2024-03-13 12:54:40.13918732 +0000 UTC m=+2030.419314682; errorClass=Other; errorCode=timeout',
    ],
    expected: (s) =>
      expect(s.groups).toMatchObject([
        { group: 'eks-mli_inference_g4dn4xl-20240313', backoff: { until: '2024-03-13 12:54:40.13918732 +0000 UTC', errorClass: 'Other', errorCode: 'timeout' } },
      ]),
  },
  {
    template: 'unremovable-utilization-1.29',
    ca: '1.32.1',
    from: 'core/scaledown/eligibility/eligibility.go:163 at 1.32.1',
    lines: ['I1121 09:59:52.140772       1 eligibility.go:163] Node ip-10-0-18-203.ec2.internal unremovable: memory requested (89.7717% of allocatable) is above the scale-down utilization threshold'],
    expected: (s) =>
      expect(s.nodes).toMatchObject([
        { node: 'ip-10-0-18-203.ec2.internal', status: 'unremovable', reason: 'NotUnderutilized', utilization: { resource: 'memory', value: 0.897717 } },
      ]),
  },
  {
    template: 'not-suitable-utilization-legacy',
    ca: '≤1.28',
    from: 'issue #3316',
    lines: ['I0713 23:20:01.678658 1 scale_down.go:472] Node ip-10-123-0-10.ec2.internal is not suitable for removal - cpu utilization too big (0.808290)'],
    expected: (s) =>
      expect(s.nodes).toMatchObject([{ node: 'ip-10-123-0-10.ec2.internal', reason: 'NotUnderutilized', utilization: { resource: 'cpu', value: 0.80829 }, message: 'is not suitable for removal - cpu utilization too big (0.808290)' }]),
  },
  {
    template: 'cannot-be-removed-1.33',
    ca: '1.33.0',
    from: 'simulator/cluster.go:159 + drainability/rules/system/rule.go at 1.33.0',
    lines: ['I1121 09:59:52.142311       1 cluster.go:159] Node ip-10-0-11-142.ec2.internal cannot be removed: non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: cluster-autoscaler-6b8f9d7c5-r4t2m'],
    expected: (s) =>
      expect(s.nodes).toMatchObject([
        { node: 'ip-10-0-11-142.ec2.internal', reason: 'BlockedByPod', blockingPod: { namespace: 'kube-system', name: 'cluster-autoscaler-6b8f9d7c5-r4t2m', reason: 'UnmovableKubeSystemPod' } },
      ]),
  },
  {
    template: 'cannot-be-removed-1.24',
    ca: '1.32.1',
    from: 'simulator/cluster.go:159 + drainability/rules/pdb/rule.go at 1.32.1',
    lines: [
      'I1121 09:59:52.142808       1 cluster.go:159] node ip-10-0-22-96.ec2.internal cannot be removed: not enough pod disruption budget to move payments/payments-api-7f6d8c9b5-hx2lp',
      'I1121 09:59:52.143110       1 cluster.go:159] node ip-10-0-27-211.ec2.internal cannot be removed: payments/psql-client is not replicated',
      'I1121 09:59:52.143350       1 cluster.go:159] node ip-10-0-14-37.ec2.internal cannot be removed: pod with local storage present: ebs-csi-controller-5c6d7f8b9-q8w2z',
      'I1121 09:59:52.143602       1 cluster.go:159] node ip-10-0-30-7.ec2.internal cannot be removed: replication controller for analytics/backfill-2026-11-20-8wcwc is not available, err: jobs.batch "backfill-2026-11-20" not found',
      'I1121 09:59:52.143890       1 cluster.go:159] node ip-10-0-31-9.ec2.internal cannot be removed: pod annotated as not safe to evict present: payments-worker-6c7d8e9f0-tt5vn',
      'I1121 09:59:52.144020       1 cluster.go:159] node ip-10-0-32-4.ec2.internal cannot be removed: replication controller for web/api-5jnmtxgjl-x49bl has too few replicas spec: 1 min: 2',
      'I1121 09:59:52.144300       1 cluster.go:159] node ip-10-0-33-5.ec2.internal cannot be removed: something CA has not said before',
    ],
    expected: (s) =>
      expect(s.nodes.map((n) => [n.node, n.reason, n.blockingPod?.reason, n.blockingPod?.namespace, n.blockingPod?.name])).toEqual([
        ['ip-10-0-14-37.ec2.internal', 'BlockedByPod', 'LocalStorageRequested', undefined, 'ebs-csi-controller-5c6d7f8b9-q8w2z'],
        ['ip-10-0-22-96.ec2.internal', 'BlockedByPod', 'NotEnoughPdb', 'payments', 'payments-api-7f6d8c9b5-hx2lp'],
        ['ip-10-0-27-211.ec2.internal', 'BlockedByPod', 'NotReplicated', 'payments', 'psql-client'],
        ['ip-10-0-30-7.ec2.internal', 'BlockedByPod', 'ControllerNotFound', 'analytics', 'backfill-2026-11-20-8wcwc'],
        ['ip-10-0-31-9.ec2.internal', 'BlockedByPod', 'NotSafeToEvictAnnotation', undefined, 'payments-worker-6c7d8e9f0-tt5vn'],
        ['ip-10-0-32-4.ec2.internal', 'BlockedByPod', 'MinReplicasReached', 'web', 'api-5jnmtxgjl-x49bl'],
        ['ip-10-0-33-5.ec2.internal', undefined, undefined, undefined, undefined],
      ]),
  },
  {
    template: 'cannot-be-removed-evaluation',
    ca: '≤1.23',
    from: 'issue #350',
    lines: [
      'I0915 16:59:40.636534 1 cluster.go:89] Fast evaluation: node ip-10-176-50-10.ec2.internal cannot be removed: non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: nginx-internal-backend-2910303434-0rh7v',
    ],
    expected: (s) =>
      expect(s.nodes).toMatchObject([{ node: 'ip-10-176-50-10.ec2.internal', blockingPod: { name: 'nginx-internal-backend-2910303434-0rh7v', reason: 'UnmovableKubeSystemPod' } }]),
  },
  {
    template: 'not-suitable-1.33',
    ca: '1.33.0',
    from: 'simulator/cluster.go:170 at 1.33.0',
    lines: ['I1121 09:59:52.145001       1 cluster.go:170] Node ip-10-0-6-88.ec2.internal is not suitable for removal: can reschedule only 0 out of 1 pods'],
    expected: (s) => expect(s.nodes).toMatchObject([{ node: 'ip-10-0-6-88.ec2.internal', reason: 'NoPlaceToMovePods', message: 'can reschedule only 0 out of 1 pods' }]),
  },
  {
    template: 'not-suitable-1.24',
    ca: '1.32.1',
    from: 'simulator/cluster.go:170 at 1.32.1',
    lines: ['I1121 09:59:52.145001       1 cluster.go:170] node ip-10-0-45-120.ec2.internal is not suitable for removal: can reschedule only 0 out of 1 pods'],
    expected: (s) => expect(s.nodes).toMatchObject([{ node: 'ip-10-0-45-120.ec2.internal', reason: 'NoPlaceToMovePods' }]),
  },
  {
    template: 'not-suitable-evaluation',
    ca: '1.20.0',
    from: 'simulator/cluster.go:192 at 1.20.0',
    lines: ['I0301 10:00:10.000001       1 cluster.go:192] Detailed evaluation: node ip-10-1-2-3.ec2.internal is not suitable for removal: failed to find place for kube-system/coredns-5d78c9869d-abcde'],
    expected: (s) => expect(s.nodes).toMatchObject([{ node: 'ip-10-1-2-3.ec2.internal', reason: 'NoPlaceToMovePods', template: 'not-suitable-evaluation' }]),
  },
  {
    template: 'may-be-removed',
    ca: '1.33.0',
    from: 'simulator/cluster.go:173 at 1.33.0',
    lines: ['I1121 09:59:52.146220       1 cluster.go:173] Node ip-10-0-29-12.ec2.internal may be removed'],
    expected: (s) => {
      expect(s.nodes).toMatchObject([{ node: 'ip-10-0-29-12.ec2.internal', status: 'removable' }]);
      expect(s.nodes[0].reason).toBeUndefined();
    },
  },
  {
    template: 'ignoring-unremovable',
    ca: '1.32.1 / 1.2x',
    from: 'eligibility.go:104 at 1.32.1; issue #1358 (scale_down.go:175)',
    lines: [
      'I1027 09:28:35.464736 1 scale_down.go:175] Scale-down calculation: ignoring 8 nodes, that were unremovable in the last 5m0s',
      'I1121 09:58:12.141438       1 eligibility.go:104] Scale-down calculation: ignoring 1 nodes unremovable in the last 5m0s',
    ],
    expected: (s) => expect(s.scaleDownRecheck).toMatchObject({ ignoredNodes: 1, count: 2 }),
  },
  {
    template: 'unremovable-recheck',
    ca: '1.32.1',
    from: 'core/scaledown/planner/planner.go:305 at 1.32.1',
    lines: ['I1121 09:58:12.144778       1 planner.go:305] 6 nodes found to be unremovable in simulation, will re-check them at 2026-11-21 10:03:12.118246319 +0000 UTC m=+62462.706246094'],
    expected: (s) => expect(s.scaleDownRecheck).toMatchObject({ unremovableNodes: 6, recheckAt: '2026-11-21 10:03:12.118246319 +0000 UTC' }),
  },
  {
    template: 'unneeded-for',
    ca: '1.2x',
    from: 'field notes §3.2 (scale_down.go:828)',
    lines: ['I1027 09:28:35.464736 1 scale_down.go:828] ip-10-123-0-10.ec2.internal was unneeded for 9m57.4347893s'],
    expected: (s) => expect(s.nodes).toMatchObject([{ node: 'ip-10-123-0-10.ec2.internal', status: 'unneeded', unneededFor: '9m57.4347893s' }]),
  },
  {
    template: 'skip-min-size',
    ca: '1.32.1',
    from: 'processors/nodes/pre_filtering_processor.go:67 at 1.32.1',
    lines: ['I1121 09:59:52.139011       1 pre_filtering_processor.go:67] Skipping ip-10-0-41-17.ec2.internal - node group min size reached (current: 1, min: 1)'],
    expected: (s) => expect(s.nodes).toMatchObject([{ node: 'ip-10-0-41-17.ec2.internal', reason: 'NodeGroupMinSizeReached', message: 'node group min size reached (current: 1, min: 1)' }]),
  },
  {
    template: 'skip-delete-consideration',
    ca: '1.32.1',
    from: 'core/scaledown/eligibility/eligibility.go:119,131 at 1.32.1',
    lines: [
      'I1121 09:59:52.139420       1 eligibility.go:119] Skipping ip-10-0-9-58.ec2.internal from delete consideration - the node is marked as no scale down',
      'W1121 09:59:52.139610       1 eligibility.go:131] Skipped ip-10-0-3-245.ec2.internal from delete consideration - the node is not autoscaled',
    ],
    expected: (s) =>
      expect(s.nodes.map((n) => [n.node, n.reason])).toEqual([
        ['ip-10-0-3-245.ec2.internal', 'NotAutoscaled'],
        ['ip-10-0-9-58.ec2.internal', 'ScaleDownDisabledAnnotation'],
      ]),
  },
  {
    template: 'skip-scale-down-disabled',
    ca: '1.32.1',
    from: 'core/scaledown/unneeded/nodes.go:148 at 1.32.1',
    lines: ['I1121 09:59:52.139500       1 nodes.go:148] Skipping ip-10-0-9-58.ec2.internal - scale down disabled annotation found'],
    expected: (s) => expect(s.nodes).toMatchObject([{ node: 'ip-10-0-9-58.ec2.internal', reason: 'ScaleDownDisabledAnnotation' }]),
  },
  {
    template: 'removing-empty-node',
    ca: '1.32.1',
    from: 'core/scaledown/actuation/actuator.go:166 at 1.32.1',
    lines: ['I1119 08:47:02.311044       1 actuator.go:166] Scale-down: removing empty node "ip-10-0-8-77.ec2.internal"'],
    expected: (s) => expect(s.nodes).toMatchObject([{ node: 'ip-10-0-8-77.ec2.internal', status: 'removing' }]),
  },
  {
    template: 'removing-node',
    ca: '1.32.1',
    from: 'core/scaledown/actuation/actuator.go at 1.32.1',
    lines: ['I1119 08:47:02.311200       1 actuator.go:268] Scale-down: removing node ip-10-0-8-78.ec2.internal, utilization: {0.12 0.05 0 cpu 0.12}, pods to reschedule: batch/nightly-etl-29920440-7xk2p'],
    expected: (s) => expect(s.nodes).toMatchObject([{ node: 'ip-10-0-8-78.ec2.internal', status: 'removing' }]),
  },
  {
    template: 'failed-to-fix-node-group-sizes',
    ca: '1.3x',
    from: 'issue #7928',
    lines: ['E0305 12:53:48.687985 1 static_autoscaler.go:448] Failed to fix node group sizes: failed to decrease MachineSet/ns/md-0: attempt to delete existing nodes targetSize:2 delta:-1 existingNodes: 2'],
    expected: (s) =>
      expect(s.health).toMatchObject([{ kind: 'failed-to-fix-node-group-sizes', lastMessage: 'failed to decrease MachineSet/ns/md-0: attempt to delete existing nodes targetSize:2 delta:-1 existingNodes: 2' }]),
  },
  {
    template: 'failed-to-get-node-infos',
    ca: 'before 1.33.0',
    from: 'issue #8045; issue #3650',
    lines: [
      'E0416 20:53:40.740732 1 static_autoscaler.go:363] Failed to get node infos for groups: wrong id: expected format aws:///<zone>/<name>, got eks-hybrid:///us-west-2/eks-workshop-hybrid/mi-0a1b2c3d4e5f60789',
      'E0416 20:53:50.751010 1 static_autoscaler.go:268] Failed to get node infos for groups: ASG "eks-ng-c5a-4f2e" uses the unknown EC2 instance type "c5a.2xlarge"',
    ],
    expected: (s) => {
      expect(s.health).toMatchObject([{ kind: 'failed-to-get-node-infos', count: 2 }]);
      expect(s.awsErrors).toMatchObject([{ kind: 'unknown-instance-type', group: 'eks-ng-c5a-4f2e', instanceType: 'c5a.2xlarge' }]);
    },
  },
  {
    template: 'failed-to-recompute-template-node-infos',
    ca: '1.35.0',
    from: 'core/static_autoscaler.go:380 at 1.35.0',
    lines: ['E1121 09:59:52.120001       1 static_autoscaler.go:380] Failed to recompute template node infos: ASG "demo-batch" uses the unknown EC2 instance type "c8gd.48xlarge"'],
    expected: (s) => expect(s.health).toMatchObject([{ kind: 'failed-to-get-node-infos', lastMessage: 'ASG "demo-batch" uses the unknown EC2 instance type "c8gd.48xlarge"' }]),
  },
  {
    template: 'cluster-not-ready',
    ca: '1.2x',
    from: 'issue #5172',
    lines: ['W0824 12:00:10.118222       1 static_autoscaler.go:428] Cluster is not ready for autoscaling'],
    expected: (s) => expect(s.health).toMatchObject([{ kind: 'cluster-not-ready', count: 1 }]),
  },
  {
    template: 'failed-to-scale-up',
    ca: '1.32.1',
    from: 'core/static_autoscaler.go:518 + executor.go "failed to increase node group size: " + aws-sdk-go v1 error text',
    lines: [
      'E1121 09:44:02.334110       1 static_autoscaler.go:518] Failed to scale up: failed to increase node group size: AccessDenied: User: arn:aws:sts::111122223333:assumed-role/demo-cluster-autoscaler/1763717022334110000 is not authorized to perform: autoscaling:SetDesiredCapacity on resource: arn:aws:autoscaling:us-east-1:111122223333:autoScalingGroup:5f1c2e0a-3b4d-4c6e-8f9a-0b1c2d3e4f5a:autoScalingGroupName/demo-gpu because no identity-based policy allows the autoscaling:SetDesiredCapacity action',
      '\tstatus code: 403, request id: 3c5e1f9a-8b7d-4e2c-9a1f-6d4b8c2e0f13',
    ],
    expected: (s) => {
      expect(s.lines.continuation).toBe(1);
      expect(s.health).toMatchObject([{ kind: 'failed-to-scale-up' }]);
      expect(s.awsErrors).toMatchObject([
        {
          kind: 'access-denied',
          action: 'autoscaling:SetDesiredCapacity',
          principal: 'arn:aws:sts::111122223333:assumed-role/demo-cluster-autoscaler/1763717022334110000',
          resource: 'arn:aws:autoscaling:us-east-1:111122223333:autoScalingGroup:5f1c2e0a-3b4d-4c6e-8f9a-0b1c2d3e4f5a:autoScalingGroupName/demo-gpu',
          group: 'demo-gpu',
        },
      ]);
    },
  },
  {
    template: 'failed-to-scale-down',
    ca: '1.2x',
    from: 'core/static_autoscaler.go "Failed to scale down: %v"; issue #941 error text',
    lines: [
      'E0611 08:09:08.617737 1 static_autoscaler.go:504] Failed to scale down: failed to delete ip-a-b-c-d.eu-west-1.compute.internal: ValidationError: Currently, desiredSize equals minSize (15). Terminating instance without replacement will violate group\'s min size constraint. Either set shouldDecrementDesiredCapacity flag to false or lower group\'s min size.',
    ],
    expected: (s) => expect(s.health).toMatchObject([{ kind: 'failed-to-scale-down', count: 1 }]),
  },
  {
    template: 'no-unschedulable-pods',
    ca: '1.32.1',
    from: 'core/static_autoscaler.go:532 at 1.32.1',
    lines: ['I1121 09:59:42.110331       1 static_autoscaler.go:532] No unschedulable pods'],
    expected: (s) => expect(s.health).toMatchObject([{ kind: 'no-unschedulable-pods', count: 1 }]),
  },
  {
    template: 'reflector-list-failed',
    ca: '1.32',
    from: 'issue #7663 / mysticaltech/terraform-hcloud-kube-hetzner#1694 (client-go v0.32)',
    lines: [
      'W0411 14:14:46.232622       1 reflector.go:569] pkg/mod/k8s.io/client-go@v0.32.0/tools/cache/reflector.go:251: failed to list *v1.VolumeAttachment: volumeattachments.storage.k8s.io is forbidden: User "system:serviceaccount:kube-system:cluster-autoscaler" cannot list resource "volumeattachments" in API group "storage.k8s.io" at the cluster scope',
    ],
    expected: (s) =>
      expect(s.health).toMatchObject([
        {
          kind: 'kube-api-list-failed',
          listKind: '*v1.VolumeAttachment',
          forbidden: { resource: 'volumeattachments', group: 'storage.k8s.io', user: 'system:serviceaccount:kube-system:cluster-autoscaler' },
          count: 1,
        },
      ]),
  },
  {
    template: 'reflector-watch-error',
    ca: '1.32 / 1.33',
    from: 'mysticaltech/terraform-hcloud-kube-hetzner#1694; kubernetes/autoscaler#7904 (client-go v0.33)',
    lines: [
      'E0411 14:14:46.232760       1 reflector.go:166] "Unhandled Error" err="pkg/mod/k8s.io/client-go@v0.32.0/tools/cache/reflector.go:251: Failed to watch *v1.VolumeAttachment: failed to list *v1.VolumeAttachment: volumeattachments.storage.k8s.io is forbidden: User \\"system:serviceaccount:kube-system:cluster-autoscaler\\" cannot list resource \\"volumeattachments\\" in API group \\"storage.k8s.io\\" at the cluster scope" logger="UnhandledError"',
      'E0724 19:45:50.900565       1 reflector.go:200] "Failed to watch" err="failed to list *v1.VolumeAttachment: volumeattachments.storage.k8s.io is forbidden: User \\"system:serviceaccount:kube-system:cluster-autoscaler-aws-cluster-autoscaler\\" cannot list resource \\"volumeattachments\\" in API group \\"storage.k8s.io\\" at the cluster scope" logger="UnhandledError" reflector="pkg/mod/k8s.io/client-go@v0.33.1/tools/cache/reflector.go:285" type="*v1.VolumeAttachment"',
    ],
    expected: (s) => {
      expect(s.health).toEqual([]);
      expect(s.repeatedErrors.map((e) => e.count)).toEqual([1, 1]);
    },
  },
  {
    template: 'failed-to-regenerate-asg-cache',
    ca: '1.32.1',
    from: 'cloudprovider/aws/aws_manager.go:128 at 1.32.1 + aws-sdk-go v1 throttling text',
    lines: ['E1121 09:59:52.119001       1 aws_manager.go:128] Failed to regenerate ASG cache: Throttling: Rate exceeded', '\tstatus code: 400, request id: 9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a'],
    expected: (s) => {
      expect(s.health).toMatchObject([{ kind: 'failed-to-regenerate-asg-cache' }]);
      expect(s.awsErrors).toMatchObject([{ kind: 'throttling' }]);
    },
  },
  {
    template: 'failed-to-create-aws-manager',
    ca: '1.2x',
    from: 'issue #4282',
    lines: [
      'F0824 12:17:58.432670 1 aws_cloud_provider.go:389] Failed to create AWS Manager: cannot autodiscover ASGs: WebIdentityErr: failed to retrieve credentials caused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity',
      'goroutine 1 [running]:',
      'k8s.io/klog/v2.stacks(0x1)',
    ],
    expected: (s) => {
      expect(s.levels.F).toBe(1);
      expect(s.lines.continuation).toBe(2);
      expect(s.fatals).toHaveLength(1);
      expect(s.fatals[0]).toMatchObject({ file: 'aws_cloud_provider.go:389', message: expect.stringContaining('Failed to create AWS Manager: cannot autodiscover ASGs') });
      expect(s.health).toMatchObject([{ kind: 'failed-to-create-aws-manager' }]);
      expect(s.awsErrors).toMatchObject([{ kind: 'web-identity', action: 'sts:AssumeRoleWithWebIdentity' }]);
    },
  },
  {
    template: 'unable-to-build-template-node',
    ca: '1.1x / 1.2x',
    from: 'issue #2163; field notes §1 (#2766)',
    lines: [
      'E0704 18:05:36.322990 1 utils.go:291] Unable to build proper template node for staging-platform-eks-spot-mixed-2020070412: Unable to get instance type from launch config or launch template',
      'E0704 18:05:46.330121 1 utils.go:291] Unable to build proper template node for eks-gpu-g4dn: ASG "eks-gpu-g4dn" uses the unknown EC2 instance type "g4dn.xlarge"',
    ],
    expected: (s) => {
      expect(s.groups).toMatchObject([
        { group: 'eks-gpu-g4dn', templateError: { error: 'ASG "eks-gpu-g4dn" uses the unknown EC2 instance type "g4dn.xlarge"' } },
        { group: 'staging-platform-eks-spot-mixed-2020070412', templateError: { error: 'Unable to get instance type from launch config or launch template' } },
      ]);
      expect(s.awsErrors.map((a) => [a.kind, a.group, a.instanceType])).toEqual([
        ['template-node', 'staging-platform-eks-spot-mixed-2020070412', undefined],
        ['unknown-instance-type', 'eks-gpu-g4dn', 'g4dn.xlarge'],
      ]);
    },
  },
  {
    template: 'asg-scaling-failed-1.35',
    ca: '1.35.0',
    from: 'cloudprovider/aws/auto_scaling_groups.go:555 at release-1.37',
    lines: [
      'W1121 09:20:14.501223       1 auto_scaling_groups.go:555] ASG demo-stateful scaling failed with description: Launching a new EC2 instance. Status Reason: We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1b). Launching EC2 instance failed.',
    ],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'demo-stateful', scalingFailed: { description: expect.stringContaining('sufficient m5.large capacity') } }]),
  },
  {
    template: 'asg-scaling-failed-1.24',
    ca: '1.32.1',
    from: 'cloudprovider/aws/auto_scaling_groups.go:551 at 1.32.1 (%s of the activity pointer)',
    lines: ['W1121 09:20:14.501223       1 auto_scaling_groups.go:551] ASG demo-stateful scaling failed with {\n  ActivityId: "1f6c2a3b-4d5e-4f60-8a9b-0c1d2e3f4a5b"'],
    expected: (s) => expect(s.groups).toMatchObject([{ group: 'demo-stateful', scalingFailed: { description: '{' } }]),
  },
  {
    template: 'regenerating-asg-map',
    ca: '1.32.1',
    from: 'cloudprovider/aws/auto_scaling_groups.go:428,435 at 1.32.1',
    lines: [
      'I1121 09:59:52.118901       1 auto_scaling_groups.go:428] Regenerating instance to ASG map for ASG names: []',
      'I1121 09:59:52.118950       1 auto_scaling_groups.go:435] Regenerating instance to ASG map for ASG tags: map[k8s.io/cluster-autoscaler/demo: k8s.io/cluster-autoscaler/enabled:]',
    ],
    expected: (s) => expect(s.asgRefresh).toMatchObject({ names: '[]', tags: 'map[k8s.io/cluster-autoscaler/demo: k8s.io/cluster-autoscaler/enabled:]', count: 2 }),
  },
  {
    template: 'refreshed-asg-list',
    ca: '1.32.1',
    from: 'cloudprovider/aws/aws_manager.go:132 at 1.32.1',
    lines: ['I1121 09:58:02.219385       1 aws_manager.go:132] Refreshed ASG list, next refresh after 2026-11-21 09:59:02.118246319 +0000 UTC m=+62212.706246094'],
    expected: (s) => expect(s.asgRefresh).toMatchObject({ nextRefresh: '2026-11-21 09:59:02.118246319 +0000 UTC', count: 1 }),
  },
  {
    template: 'regenerating-asg-map-legacy',
    ca: '1.2x',
    from: 'field notes §3.2 (P#1, #3041)',
    lines: ['I0412 10:00:00.100000       1 auto_scaling_groups.go:351] Regenerating instance to ASG map for ASGs: []'],
    expected: (s) => expect(s.asgRefresh).toMatchObject({ names: '[]', count: 1 }),
  },
  {
    template: 'failed-to-generate-instance-types',
    ca: '1.23.0+',
    from: 'issue #4625; aws_cloud_provider.go:439 at 1.32.1',
    lines: [
      'E0301 10:00:00.200000       1 aws_cloud_provider.go:439] Failed to generate AWS EC2 Instance Types: UnauthorizedOperation: You are not authorized to perform this operation.',
      '\tstatus code: 403, request id: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d, falling back to static list with last update time: 2024-12-04',
    ],
    expected: (s) => expect(s.awsErrors).toMatchObject([{ kind: 'access-denied', message: expect.stringContaining('UnauthorizedOperation') }]),
  },
];

describe('CA log templates: one real line per template', () => {
  for (const c of CASES) {
    it(`parses ${c.template} as CA ${c.ca} logs it (${c.from})`, () => {
      const s = parse(c.lines);
      expect(s.lines.unmatched + s.lines.unparsed, JSON.stringify(s.unknownSamples)).toBe(0);
      expect(s.templateHits[c.template]).toBeGreaterThan(0);
      c.expected(s);
    });
  }

  it('has a case for every template in the table, and no case for a template that does not exist', () => {
    const ids = CA_LOG_TEMPLATES.map((t) => t.id).sort();
    expect(new Set(ids).size).toBe(ids.length);
    expect([...new Set(CASES.map((c) => c.template))].sort()).toEqual(ids);
  });

  it('names an upstream file and a version range for every template', () => {
    for (const t of CA_LOG_TEMPLATES) {
      expect(t.source, t.id).toMatch(/\.go$/);
      expect(t.versions, t.id).not.toBe('');
      expect(t.start === '' || t.re.source.startsWith(`^${t.start.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}`) || t.re.source.startsWith('^'), t.id).toBe(true);
    }
  });
});

describe('CA log wording dates the CA binary', () => {
  it('narrows the minor version from the wordings seen (1.32 predicate text, lower-case "node" in scale-down)', () => {
    const s = parse([
      'I1121 09:59:52.129870       1 orchestrator.go:588] Pod a/b can\'t be scheduled on g, predicate checking error: can\'t schedule pod a/b: predicate "NodeAffinity" didn\'t pass (predicateReasons=[x]; debugInfo=nodeName: "t")',
      'I1121 09:59:52.142808       1 cluster.go:159] node n1 cannot be removed: n/p is not replicated',
    ]);
    expect(s.wording).toEqual({ minMinor: 32, maxMinor: 32, consistent: true });
  });

  it('reports inconsistent wording when a log mixes CA versions (an upgrade mid-log)', () => {
    const s = parse(['I1121 09:59:52.142808       1 cluster.go:159] node n1 cannot be removed: n/p is not replicated', 'I1121 10:59:52.142808       1 cluster.go:159] Node n1 cannot be removed: n/p is not replicated']);
    expect(s.wording).toEqual({ minMinor: 33, maxMinor: 32, consistent: false });
  });
});

describe('CA log envelopes', () => {
  const msg = 'Starting main loop';

  it('reads klog text with a padded thread id and infers the year from now', () => {
    const e = parseEnvelope(`I1121 09:59:52.118342       1 static_autoscaler.go:274] ${msg}`, NOW.getTime());
    expect(e).toEqual({ format: 'klog', level: 'I', time: Date.parse('2026-11-21T09:59:52.118Z'), file: 'static_autoscaler.go:274', msg, yearFrom: 'now' });
  });

  it('dates a December klog line read in January in the previous year', () => {
    const e = parseEnvelope(`I1231 23:59:59.900000       1 static_autoscaler.go:274] ${msg}`, Date.parse('2027-01-01T00:00:05Z'));
    expect(new Date(e?.time ?? 0).toISOString()).toBe('2026-12-31T23:59:59.900Z');
  });

  it('reads CA --logging-format=json (FAQ example): ts in epoch ms, caller, msg with its trailing newline, v on info lines', () => {
    const e = parseEnvelope('{"ts":1692825334994.433,"caller":"cluster-autoscaler/main.go:569","msg":"Cluster Autoscaler 1.28.0-beta.0\\n","v":1}', NOW.getTime());
    expect(e).toMatchObject({ format: 'json', level: 'I', time: 1692825334994.433, file: 'cluster-autoscaler/main.go:569', msg: 'Cluster Autoscaler 1.28.0-beta.0' });
  });

  it('reads a JSON error record (no "v", as zapr writes errors) as level E', () => {
    const e = parseEnvelope('{"ts":1763719192120.001,"caller":"core/static_autoscaler.go:363","msg":"Failed to get node infos for groups: boom\\n"}', NOW.getTime());
    expect(e).toMatchObject({ format: 'json', level: 'E', msg: 'Failed to get node infos for groups: boom' });
  });

  it('reads kubectl logs --timestamps lines and takes the year from the prefix', () => {
    const e = parseEnvelope(`2025-11-21T09:59:52.118342871Z I1121 09:59:52.118342       1 static_autoscaler.go:274] ${msg}`, NOW.getTime());
    expect(e).toMatchObject({ format: 'prefixed-klog', time: Date.parse('2025-11-21T09:59:52.118Z'), yearFrom: 'prefix', msg });
  });

  it('reads CRI log-file lines (timestamp, stream, partial flag)', () => {
    const e = parseEnvelope(`2026-11-21T09:59:52.118342871Z stderr F I1121 09:59:52.118342       1 static_autoscaler.go:274] ${msg}`, NOW.getTime());
    expect(e).toMatchObject({ format: 'prefixed-klog', level: 'I', msg });
  });

  it('reads `aws logs tail` lines (timestamp, log stream, line) and a +00:00 offset', () => {
    const e = parseEnvelope(
      `2026-11-21T09:59:52.118000+00:00 kube-system_cluster-autoscaler-6b8f9d7c5-r4t2m_cluster-autoscaler W1121 09:59:52.118342       1 orchestrator.go:626] ${msg}`,
      NOW.getTime(),
    );
    expect(e).toMatchObject({ format: 'prefixed-klog', level: 'W', msg });
  });

  it('reads docker json-file / fluent-bit records whose "log" holds a klog line or a CA JSON line', () => {
    const k = parseEnvelope(JSON.stringify({ log: `E1121 09:59:52.118342       1 static_autoscaler.go:363] ${msg}\n`, stream: 'stderr', time: '2026-11-21T09:59:52.118342871Z' }), NOW.getTime());
    expect(k).toMatchObject({ format: 'prefixed-klog', level: 'E', msg });
    const j = parseEnvelope(JSON.stringify({ log: JSON.stringify({ ts: 1763719192118, caller: 'core/static_autoscaler.go:274', msg: `${msg}\n`, v: 4 }), stream: 'stderr' }), NOW.getTime());
    expect(j).toMatchObject({ format: 'prefixed-json', level: 'I', msg, time: 1763719192118 });
  });

  it('finds no envelope in lines that are not log records', () => {
    for (const l of ['hello world', '{"apiVersion":"v1","kind":"List"}', '2026-11-21 not a log', '{broken json', 'I1121 garbage'])
      expect(parseEnvelope(l, NOW.getTime()), l).toBeUndefined();
  });

  it('counts the envelope each line used and picks the most common as the format', () => {
    const s = parse([
      `2026-11-21T09:59:42.104117Z I1121 09:59:42.104117       1 static_autoscaler.go:274] ${msg}`,
      `2026-11-21T09:59:52.118342Z I1121 09:59:52.118342       1 static_autoscaler.go:274] ${msg}`,
      `I1121 10:00:02.120001       1 static_autoscaler.go:274] ${msg}`,
    ]);
    expect(s.format).toBe('prefixed-klog');
    expect(s.formats).toEqual({ 'prefixed-klog': 2, klog: 1 });
    expect(s.yearFrom).toBe('prefix');
    expect(s.mainLoop.count).toBe(3);
  });

  it('parses the same messages alike in JSON format', () => {
    const s = parse([
      '{"ts":1763719192118.342,"caller":"core/static_autoscaler.go:274","msg":"Starting main loop\\n","v":4}',
      '{"ts":1763719192129.87,"caller":"orchestrator/orchestrator.go:588","msg":"Pod ml/x can\'t be scheduled on demo-gpu, predicate checking error: can\'t schedule pod ml/x: predicate \\"NodeResourcesFit\\" didn\'t pass (predicateReasons=[Insufficient nvidia.com/gpu]; debugInfo=nodeName: \\"template-node-for-demo-gpu-1\\")\\n","v":2}',
      '{"ts":1763719192130.1,"caller":"core/static_autoscaler.go:518","msg":"Failed to scale up: failed to increase node group size: operation error Auto Scaling: SetDesiredCapacity, https response error StatusCode: 403, RequestID: 0f6e, api error AccessDenied: User: arn:aws:sts::111122223333:assumed-role/demo-cluster-autoscaler/x is not authorized to perform: autoscaling:SetDesiredCapacity on resource: arn:aws:autoscaling:us-east-1:111122223333:autoScalingGroup:u:autoScalingGroupName/demo-gpu because no identity-based policy allows the autoscaling:SetDesiredCapacity action\\n"}',
    ]);
    expect(s.format).toBe('json');
    expect(s.mainLoop.count).toBe(1);
    expect(s.predicateFailures).toMatchObject([{ pod: 'ml/x', group: 'demo-gpu', plugin: 'NodeResourcesFit', reasons: ['Insufficient nvidia.com/gpu'] }]);
    expect(s.levels).toEqual({ I: 2, W: 0, E: 1, F: 0 });
    expect(s.awsErrors).toMatchObject([{ kind: 'access-denied', action: 'autoscaling:SetDesiredCapacity', group: 'demo-gpu' }]);
  });
});

describe('CA log: unknown lines, repeats and bounds', () => {
  it('counts and samples unknown lines without failing, by shape', () => {
    const s = parse([
      'I1121 09:59:52.118342       1 static_autoscaler.go:274] Starting main loop',
      'I1121 09:59:52.118400       1 some_new_file.go:12] A message no template knows 1',
      'I1121 09:59:52.118500       1 some_new_file.go:12] A message no template knows 2',
      'not a log line at all',
      '',
    ]);
    expect(s.lines).toEqual({ total: 5, blank: 1, recognised: 1, unmatched: 2, unparsed: 1, continuation: 0 });
    expect(s.unknownSamples).toEqual([
      { kind: 'unmatched', example: 'A message no template knows 1', count: 2 },
      { kind: 'unparsed', example: 'not a log line at all', count: 1 },
    ]);
  });

  it('counts the same error every loop once per normalized message, with the loops it appeared in', () => {
    const lines: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ts = `09:5${i}:52.11834${i}`;
      lines.push(`I1121 ${ts}       1 static_autoscaler.go:274] Starting main loop`);
      lines.push(`E1121 ${ts}       1 static_autoscaler.go:363] Failed to get node infos for groups: ASG "demo-batch" uses the unknown EC2 instance type "c8gd.48xlarge", request ${1000 + i}`);
    }
    const s = parse(lines);
    expect(s.repeatedErrors).toHaveLength(1);
    expect(s.repeatedErrors[0]).toMatchObject({ level: 'E', count: 3, loops: 3, sample: expect.stringContaining('request 1002') });
    expect(s.repeatedErrors[0].normalized).toBe(normalizeCaLogMessage(lines[1].slice(lines[1].indexOf('] ') + 2)));
  });

  it('keeps the latest record per pod × group with counts', () => {
    const line = (t: string, reason: string) =>
      `I1121 ${t}       1 orchestrator.go:588] Pod web/api-1 can't be scheduled on demo-general, predicate checking error: can't schedule pod web/api-1: predicate "NodeResourcesFit" didn't pass (predicateReasons=[${reason}]; debugInfo=nodeName: "template-node-for-demo-general-1")`;
    const s = parse([line('09:59:32.100000', 'Insufficient memory'), line('09:59:42.100000', 'Insufficient cpu')]);
    expect(s.predicateFailures).toMatchObject([
      { pod: 'web/api-1', reasons: ['Insufficient cpu'], count: 2, firstSeen: '2026-11-21T09:59:32.100Z', lastSeen: '2026-11-21T09:59:42.100Z' },
    ]);
  });

  it('splits reason lists at ", " but not inside braces', () => {
    expect(splitReasons('node(s) had untolerated taint {a: b, c}, Insufficient cpu')).toEqual(['node(s) had untolerated taint {a: b, c}', 'Insufficient cpu']);
    expect(splitReasons('')).toEqual([]);
  });

  /** `lines` klog lines: each loop, 100 pods of `pods` fail on their group (pod i always on group i % 3), every tenth can be moved. */
  function feed(p: ReturnType<typeof createCaLogParser>, lines: number, pods: number, groupOf: (pod: number, loop: number) => number): void {
    const groups = ['demo-general', 'demo-batch', 'demo-gpu'];
    let n = 0;
    for (let loop = 0; n < lines; loop++) {
      const ts = `I1121 09:${String(Math.floor(loop / 60) % 60).padStart(2, '0')}:${String(loop % 60).padStart(2, '0')}.118342       1 `;
      p.push(`${ts}static_autoscaler.go:274] Starting main loop`);
      n++;
      for (let i = 0; i < 100 && n < lines; i++, n++) {
        const pod = (loop * 100 + i) % pods;
        const g = groups[groupOf(pod, loop)];
        p.push(
          i % 10 === 9
            ? `${ts}klogx.go:87] Pod ns-${pod % 50}/pod-${pod} can be moved to ip-10-0-${pod % 250}-7.ec2.internal`
            : `${ts}orchestrator.go:588] Pod ns-${pod % 50}/pod-${pod} can't be scheduled on ${g}, predicate checking error: can't schedule pod ns-${pod % 50}/pod-${pod}: predicate "NodeAffinity" didn't pass (predicateReasons=[node(s) didn't match Pod's node affinity/selector]; debugInfo=nodeName: "template-node-for-${g}-1")`,
        );
      }
    }
  }

  it('stays bounded on 1M lines of 10k distinct pods: one record per pod × group, the counts add up to the lines', () => {
    const p = createCaLogParser({ source: { kind: 'text' }, now: NOW });
    feed(p, 1_000_000, 10_000, (pod) => pod % 3);
    const s = p.finish();
    expect(s.lines.total).toBe(1_000_000);
    expect(s.lines.recognised).toBe(1_000_000);
    expect(s.predicateFailures).toHaveLength(9_000);
    expect(s.podMoves).toHaveLength(1_000);
    expect(s.predicateFailures.reduce((a, f) => a + f.count, 0) + s.podMoves.reduce((a, m) => a + m.count, 0) + s.mainLoop.count).toBe(1_000_000);
    expect(s.dropped).toEqual({});
    // the summary's size follows the number of keys (≤ the limits), not the number of lines
    expect(JSON.stringify(s).length).toBeLessThan(9_000 * 900 + 1_000 * 200 + 50_000);
  }, 60_000);

  it('drops the least recently seen keys beyond a limit and counts them, keeping the newest', () => {
    const p = createCaLogParser({ source: { kind: 'text' }, now: NOW, limits: { predicateFailures: 2_000, podMoves: 100 } });
    // 10k pods × 3 groups = 30k pod × group keys, far beyond the limit
    feed(p, 200_000, 10_000, (pod, loop) => (pod + loop) % 3);
    const s = p.finish();
    expect(s.predicateFailures.length).toBeLessThanOrEqual(2_000);
    expect(s.predicateFailures.length).toBeGreaterThan(1_500);
    expect(s.podMoves.length).toBeLessThanOrEqual(100);
    expect(s.dropped.predicateFailures).toBeGreaterThan(0);
    expect(s.dropped.podMoves).toBeGreaterThan(0);
    // what is kept is the newest: ~20 loops' worth of failures, all seen within the last minute of the log
    const seen = s.predicateFailures.map((f) => Date.parse(f.lastSeen ?? ''));
    expect(Math.max(...seen)).toBe(Date.parse(s.lastTime ?? ''));
    expect(Math.max(...seen) - Math.min(...seen)).toBeLessThanOrEqual(60_000);
  }, 60_000);
});

describe('the demo log (examples/demo/cluster-autoscaler.log: `kubectl logs --since=2m` of CA v1.32.1 in examples/demo at 10:00:00)', () => {
  const s = parse(readFileSync(new URL('../../examples/demo/cluster-autoscaler.log', import.meta.url), 'utf8').split('\n'));
  const SEL = "node(s) didn't match Pod's node affinity/selector";
  const DB = 'node(s) had untolerated taint {dedicated: databases}';
  const GPU = 'node(s) had untolerated taint {nvidia.com/gpu: true}';

  it('is a klog log of 12 main loops at hh:mm:x2.118, every line understood or counted, none unparsed', () => {
    expect(s.format).toBe('klog');
    expect(s.lines.unparsed).toBe(0);
    expect(s.mainLoop).toMatchObject({ count: 12, first: '2026-11-21T09:58:02.118Z', last: '2026-11-21T09:59:52.118Z', maxGapMs: 10_000 });
    expect(s.lastTime).toBe('2026-11-21T09:59:56.124Z');
  });

  it("logs, for the six Pending pods CA considers, the same first failing plugin per group as casdoctor's why-pending", () => {
    const got = Object.fromEntries(s.predicateFailures.map((f) => [`${f.pod} ${f.group}`, `${f.plugin}: ${f.reasons.join(', ')} ×${f.count}`]));
    const row = (pod: string, batch: string, general: string, gpu: string, stateful: string) => ({
      [`${pod} demo-batch`]: `${batch} ×12`,
      [`${pod} demo-databases`]: `TaintToleration: ${DB} ×12`,
      [`${pod} demo-general`]: `${general} ×12`,
      [`${pod} demo-gpu`]: `${gpu} ×12`,
      [`${pod} demo-stateful`]: `${stateful} ×12`,
    });
    const sel = `NodeAffinity: ${SEL}`;
    const gpuTaint = `TaintToleration: ${GPU}`;
    const cpuMem = 'NodeResourcesFit: Insufficient cpu, Insufficient memory';
    expect(got).toEqual({
      ...row('analytics/spark-driver-4bqs8k75dw-zkjbk', cpuMem, cpuMem, gpuTaint, cpuMem),
      ...row('batch/report-builder-rcn64q4v2c-rgnzf', sel, sel, gpuTaint, sel),
      ...row('databases/orders-pg-0', sel, sel, gpuTaint, sel),
      ...row('ml/inference-dq6zpx2jv2-6v8wc', sel, sel, 'NodeResourcesFit: Insufficient nvidia.com/gpu', sel),
      ...row('payments/ledger-db-0', sel, sel, gpuTaint, 'VolumeBinding: node(s) had volume node affinity conflict'),
      ...row('web/frontend-ndxrt2l4f-w4dtv', sel, sel, gpuTaint, sel),
    });
    expect(s.unschedulablePods.map((p) => p.pod)).not.toContain('overprovisioning/pause-97khkfvfc9-r77mb');
    expect(s.groups.find((g) => g.group === 'demo-spot')?.skipped).toMatchObject({ reason: 'max size reached', count: 12 });
    expect(s.health.find((h) => h.kind === 'no-expansion-options')?.count).toBe(12);
  });

  it('names payments-api (NotEnoughPdb) as what blocks ip-10-0-22-96, where casdoctor names the orphaned backfill pod: the one disagreement', () => {
    expect(s.nodes.find((n) => n.node === 'ip-10-0-22-96.ec2.internal')).toMatchObject({
      reason: 'BlockedByPod',
      blockingPod: { namespace: 'payments', name: 'payments-api-q29mn9t57-xbkgx', reason: 'NotEnoughPdb' },
    });
    expect(Object.fromEntries(s.nodes.map((n) => [n.node, n.blockingPod?.reason ?? n.reason]))).toEqual({
      'ip-10-0-11-142.ec2.internal': 'UnmovableKubeSystemPod',
      'ip-10-0-14-37.ec2.internal': 'LocalStorageRequested',
      'ip-10-0-18-203.ec2.internal': 'NotUnderutilized',
      'ip-10-0-22-96.ec2.internal': 'NotEnoughPdb',
      'ip-10-0-27-211.ec2.internal': 'UnmovableKubeSystemPod',
      'ip-10-0-29-12.ec2.internal': 'NoPlaceToMovePods',
      'ip-10-0-41-17.ec2.internal': 'NodeGroupMinSizeReached',
      'ip-10-0-45-120.ec2.internal': 'NoPlaceToMovePods',
      'ip-10-0-6-88.ec2.internal': 'NoPlaceToMovePods',
      'ip-10-0-9-58.ec2.internal': 'ScaleDownDisabledAnnotation',
    });
  });

  it('carries one CA-health signal: client-go cannot list VolumeAttachments (RBAC) about once a minute, while the loop keeps running', () => {
    expect(s.health.find((h) => h.kind === 'kube-api-list-failed')).toMatchObject({
      count: 3,
      listKind: '*v1.VolumeAttachment',
      forbidden: { resource: 'volumeattachments', group: 'storage.k8s.io', user: 'system:serviceaccount:kube-system:cluster-autoscaler' },
    });
    expect(s.repeatedErrors.map((e) => [e.level, e.count])).toEqual([
      ['E', 3],
      ['W', 3],
    ]);
    expect(s.levels).toMatchObject({ W: 3, E: 3, F: 0 });
    expect(s.awsErrors).toEqual([]);
  });
});
