import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/model/k8s.js';
import {
  caConsidersFromStage,
  karpenterIgnoresPod,
  karpenterNodesInCaGroups,
  routePendingPod,
  routePendingPods,
  type PodRoutingInput,
} from '../../../../src/simulate/providers/karpenter/routing.js';
import { loadKarpenterFixture } from '../../../fixtures/karpenter-disruption/load.js';

function pendingPod(name: string, patch: (p: Pod) => void = () => {}): Pod {
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'shop',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'checkout-7c9d8b6f5', controller: true }],
    },
    spec: { containers: [{ name: 'main', resources: { requests: { cpu: '500m', memory: '512Mi' } } }] },
    status: {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/5 nodes are available: 5 Insufficient cpu. preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod.',
          lastTransitionTime: '2026-11-24T07:29:40Z',
        },
      ],
    },
  };
  patch(p);
  return p;
}

const fitsBoth = (pod: Pod): PodRoutingInput => ({
  pod,
  caGroups: [{ name: 'eks-system-ng-8ac9f2d1', fits: true }],
  nodePools: [{ name: 'general', fits: true }],
});

const notOnKarpenter = (p: Pod, where: 'required-first' | 'required-second' | 'preferred-heaviest' | 'preferred-light') => {
  const expr = { key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' };
  const other = { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] };
  if (where === 'required-first') {
    p.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expr] }] } } };
  } else if (where === 'required-second') {
    p.spec.affinity = {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [other] }, { matchExpressions: [expr] }] } },
    };
  } else {
    p.spec.affinity = {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: where === 'preferred-heaviest' ? 80 : 10, preference: { matchExpressions: [expr] } },
          { weight: 50, preference: { matchExpressions: [other] } },
        ],
      },
    };
  }
};

describe('karpenterIgnoresPod (karpenter pkg/utils/pod/scheduling.go:102-108, provisioner.go:569-589)', () => {
  const cases: Array<[string, (p: Pod) => void, string | undefined]> = [
    ['an ordinary unschedulable pod is provisioned for', () => {}, undefined],
    ['a pod the scheduler has not marked Unschedulable is not', (p) => (p.status!.conditions = []), 'not-unschedulable'],
    ['a pod preempting (status.nominatedNodeName) is not', (p) => (p.status!.nominatedNodeName = 'ip-10-0-50-12.ec2.internal'), 'preempting'],
    [
      'a DaemonSet pod is not',
      (p) => (p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluent-bit', controller: true }]),
      'daemonset',
    ],
    ['a mirror pod owned by its Node is not', (p) => (p.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: 'ip-10-0-50-12.ec2.internal' }]), 'mirror-pod'],
    ['karpenter.sh/nodepool DoesNotExist in the first required term opts out', (p) => notOnKarpenter(p, 'required-first'), 'nodepool-does-not-exist'],
    ['the same in a second required term does not (only the first term counts)', (p) => notOnKarpenter(p, 'required-second'), undefined],
    ['the same as the heaviest preference opts out too (requirements.go:98-101)', (p) => notOnKarpenter(p, 'preferred-heaviest'), 'nodepool-does-not-exist'],
    ['the same as a lighter preference does not', (p) => notOnKarpenter(p, 'preferred-light'), undefined],
  ];
  it.each(cases)('%s', (_name, patch, id) => {
    expect(karpenterIgnoresPod(pendingPod('checkout-7c9d8b6f5-p2x4r', patch))?.id).toBe(id);
  });

  it('uses the silent opt-out text Karpenter logs, with no event', () => {
    const r = karpenterIgnoresPod(pendingPod('p', (p) => notOnKarpenter(p, 'required-first')));
    expect(r).toEqual({
      id: 'nodepool-does-not-exist',
      text: 'ignoring pod, configured to not run on a Karpenter provisioned node (requirement=karpenter.sh/nodepool DoesNotExist)',
      emitsEvent: false,
    });
  });
});

describe('routePendingPod', () => {
  it('says "CA and Karpenter may both provision" when a CA group and a NodePool both fit', () => {
    const r = routePendingPod(fitsBoth(pendingPod('checkout-7c9d8b6f5-p2x4r')));
    expect(r.route).toBe('both');
    expect(r.message).toMatch(/^CA and Karpenter may both provision for pod shop\/checkout-7c9d8b6f5-p2x4r: CA node group\(s\) eks-system-ng-8ac9f2d1 and NodePool\(s\) general/);
  });

  it('routes an opted-out pod to CA alone', () => {
    const r = routePendingPod(fitsBoth(pendingPod('p', (p) => notOnKarpenter(p, 'required-first'))));
    expect(r).toMatchObject({ route: 'ca', karpenterConsiders: false, nodePoolsFitting: [] });
    expect(r.message).toMatch(/Karpenter ignores it: ignoring pod, configured to not run on a Karpenter provisioned node/);
  });

  it('routes to Karpenter when no CA group fits, naming the first fitting NodePool in weight order', () => {
    const r = routePendingPod({
      pod: pendingPod('p'),
      caGroups: [{ name: 'eks-system-ng-8ac9f2d1', fits: false, reason: 'Insufficient cpu' }],
      nodePools: [
        { name: 'gpu', fits: false, reason: 'did not tolerate taint' },
        { name: 'general', fits: true },
        { name: 'batch', fits: true },
      ],
    });
    expect(r).toMatchObject({ route: 'karpenter', nodePoolsFitting: ['general', 'batch'] });
    expect(r.message).toBe('Karpenter serves pod shop/p via NodePool general (no CA node group fits it).');
  });

  it('routes to Karpenter alone when CA\'s pod filter drops the pod', () => {
    const r = routePendingPod({ ...fitsBoth(pendingPod('p')), caConsiders: { considered: false, reason: 'it is younger than --new-pod-scale-up-delay' } });
    expect(r).toMatchObject({ route: 'karpenter', caConsiders: false, caGroupsFitting: [] });
  });

  it('says why neither serves a pod', () => {
    const r = routePendingPod({
      pod: pendingPod('p'),
      caGroups: [{ name: 'eks-system-ng-8ac9f2d1', fits: false, reason: 'Insufficient memory' }],
      nodePools: [{ name: 'general', fits: false, reason: 'incompatible requirements' }],
    });
    expect(r.route).toBe('neither');
    expect(r.message).toBe(
      'No autoscaler serves pod shop/p: no NodePool fits (general: incompatible requirements); no CA node group fits (eks-system-ng-8ac9f2d1: Insufficient memory).',
    );
  });

  it('serves a DaemonSet pod with neither autoscaler once CA\'s own pod filter says so', () => {
    const ds = pendingPod('fluent-bit-x2k9q', (p) => (p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluent-bit' }]));
    const caStage = caConsidersFromStage({ kind: 'ignored', caWord: 'DaemonSet pod', reason: 'it is a DaemonSet pod; CA never scales up for DaemonSet pods' });
    const r = routePendingPod({ ...fitsBoth(ds), caConsiders: caStage });
    expect(r.route).toBe('neither');
    expect(r.message).toBe(
      'No autoscaler serves pod shop/fluent-bit-x2k9q: Karpenter ignores it: it is owned by a DaemonSet; CA ignores it: it is a DaemonSet pod; CA never scales up for DaemonSet pods.',
    );
    // without CA's verdict the module assumes CA considers the pod
    expect(routePendingPod(fitsBoth(ds)).route).toBe('ca');
  });

  it('routes to CA when Karpenter is absent and to Karpenter when CA is absent', () => {
    expect(routePendingPod({ ...fitsBoth(pendingPod('p')), karpenterPresent: false }).route).toBe('ca');
    expect(routePendingPod({ ...fitsBoth(pendingPod('p')), caPresent: false }).route).toBe('karpenter');
  });

  it('does not route a bound pod', () => {
    expect(routePendingPod(fitsBoth(pendingPod('p', (p) => (p.spec.nodeName = 'ip-10-0-101-17.ec2.internal')))).route).toBe('not-pending');
  });

  it('keeps input order for many pods', () => {
    expect(routePendingPods([fitsBoth(pendingPod('a')), fitsBoth(pendingPod('b', (p) => notOnKarpenter(p, 'required-first')))]).map((r) => r.route)).toEqual([
      'both',
      'ca',
    ]);
  });
});

describe('karpenterNodesInCaGroups', () => {
  it('flags Karpenter nodes a CA node group claims and nothing else', () => {
    const f = loadKarpenterFixture();
    const caNode = f.nodes.find((n) => n.metadata.name === 'ip-10-0-50-12.ec2.internal')!;
    const karpNode = f.nodes.find((n) => n.metadata.name === 'ip-10-0-101-17.ec2.internal')!;
    expect(karpenterNodesInCaGroups([{ name: 'eks-system-ng-8ac9f2d1', nodes: [caNode] }])).toEqual([]);
    expect(karpenterNodesInCaGroups([{ name: 'legacy-asg', nodes: [caNode, karpNode] }])).toEqual([
      { group: 'legacy-asg', node: 'ip-10-0-101-17.ec2.internal', nodePool: 'general' },
    ]);
  });
});
