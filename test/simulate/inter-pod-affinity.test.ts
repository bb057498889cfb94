import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../src/model/k8s.js';
import {
  INTER_POD_AFFINITY,
  interPodAffinity,
  REASON_EXISTING_ANTI_AFFINITY,
  REASON_POD_AFFINITY,
  REASON_POD_ANTI_AFFINITY,
} from '../../src/simulate/predicates/inter-pod-affinity.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import { affinityTerm, node, pod } from '../builders/k8s.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const a1 = node('node-a1').inZone('us-east-1a').build();
const a2 = node('node-a2').inZone('us-east-1a').build();
const b1 = node('node-b1').inZone('us-east-1b').build();
const nodes = [a1, a2, b1];

function run(p: Pod, target: Node, pods: Pod[], namespaceLabels?: Map<string, Record<string, string>>) {
  const view = buildClusterView({ nodes, pods, namespaceLabels });
  const ni =
    view.nodeInfos.find((x) => x.node.metadata.name === target.metadata.name) ?? nodeInfoFor(target, []);
  return interPodAffinity(p, ni, view);
}

const cache = pod('redis-0').withLabels({ app: 'redis' }).onNode('node-a1').build();

describe('InterPodAffinity: the pod’s anti-affinity', () => {
  const p = pod('redis-1')
    .withLabels({ app: 'redis' })
    .withPodAntiAffinity(affinityTerm({ app: 'redis' }, HOST))
    .build();

  it('rejects a node that runs a matching pod', () => {
    const s = run(p, a1, [cache]);
    expect(s).toMatchObject({
      plugin: INTER_POD_AFFINITY,
      code: 'Unschedulable',
      reasons: [REASON_POD_ANTI_AFFINITY],
    });
    expect(REASON_POD_ANTI_AFFINITY).toBe("node(s) didn't match pod anti-affinity rules");
    expect(s.details).toEqual([
      "1 pod(s) in kubernetes.io/hostname=node-a1 match the pod's anti-affinity term (topologyKey kubernetes.io/hostname, selector app=redis), e.g. default/redis-0",
    ]);
  });

  it('passes another node', () => {
    expect(run(p, a2, [cache]).code).toBe('Success');
  });

  it('rejects the whole zone with a zone topology key', () => {
    const zonal = pod('redis-1')
      .withLabels({ app: 'redis' })
      .withPodAntiAffinity(affinityTerm({ app: 'redis' }, ZONE))
      .build();
    expect(run(zonal, a2, [cache]).code).toBe('Unschedulable');
    expect(run(zonal, b1, [cache]).code).toBe('Success');
  });

  it('ignores pods of other namespaces by default', () => {
    const other = pod('redis-0', 'staging').withLabels({ app: 'redis' }).onNode('node-a1').build();
    expect(run(p, a1, [other]).code).toBe('Success');
  });

  it('looks at the listed namespaces', () => {
    const other = pod('redis-0', 'staging').withLabels({ app: 'redis' }).onNode('node-a1').build();
    const listed = pod('redis-1')
      .withPodAntiAffinity(affinityTerm({ app: 'redis' }, HOST, { namespaces: ['staging'] }))
      .build();
    expect(run(listed, a1, [other]).code).toBe('Unschedulable');
  });

  it('looks at every namespace with an empty namespaceSelector', () => {
    const other = pod('redis-0', 'staging').withLabels({ app: 'redis' }).onNode('node-a1').build();
    const all = pod('redis-1')
      .withPodAntiAffinity(affinityTerm({ app: 'redis' }, HOST, { namespaceSelector: {} }))
      .build();
    expect(run(all, a1, [other]).code).toBe('Unschedulable');
  });

  it('needs namespace labels for a non-empty namespaceSelector', () => {
    const other = pod('redis-0', 'staging').withLabels({ app: 'redis' }).onNode('node-a1').build();
    const sel = pod('redis-1')
      .withPodAntiAffinity(
        affinityTerm({ app: 'redis' }, HOST, { namespaceSelector: { matchLabels: { env: 'staging' } } }),
      )
      .build();
    expect(run(sel, a1, [other]).code).toBe('NotEvaluated');
    const labels = new Map([['staging', { env: 'staging', 'kubernetes.io/metadata.name': 'staging' }]]);
    expect(run(sel, a1, [other], labels).code).toBe('Unschedulable');
    expect(run(sel, a2, [other], labels).code).toBe('Success');
  });
});

describe('InterPodAffinity: the pod’s affinity', () => {
  const p = pod('web-0')
    .withLabels({ app: 'web' })
    .withPodAffinity(affinityTerm({ app: 'redis' }, ZONE))
    .build();

  it('passes a node in the zone of a matching pod', () => {
    expect(run(p, a2, [cache]).code).toBe('Success');
  });

  it('rejects a node in another zone', () => {
    const s = run(p, b1, [cache]);
    expect(s).toMatchObject({ code: 'UnschedulableAndUnresolvable', reasons: [REASON_POD_AFFINITY] });
    expect(REASON_POD_AFFINITY).toBe("node(s) didn't match pod affinity rules");
    expect(s.details).toEqual([
      'no pod matching all affinity terms runs in topology.kubernetes.io/zone=us-east-1b (term: topologyKey topology.kubernetes.io/zone, selector app=redis)',
    ]);
  });

  it('rejects every node when no pod matches and the pod does not match its own term', () => {
    expect(run(p, a1, []).code).toBe('UnschedulableAndUnresolvable');
  });

  it('lets the first pod of a self-affine group go anywhere', () => {
    const first = pod('web-0')
      .withLabels({ app: 'web' })
      .withPodAffinity(affinityTerm({ app: 'web' }, ZONE))
      .build();
    expect(run(first, b1, []).code).toBe('Success');
  });

  it('rejects a node without the topology key', () => {
    const bare = node('bare').withoutLabel(ZONE).build();
    const view = buildClusterView({ nodes: [...nodes, bare], pods: [cache] });
    const s = interPodAffinity(p, view.nodeInfos[3], view);
    expect(s.code).toBe('UnschedulableAndUnresolvable');
    expect(s.details?.[0]).toContain('has no label topology.kubernetes.io/zone');
  });
});

describe('InterPodAffinity: existing pods’ anti-affinity', () => {
  const guard = pod('zk-0')
    .withLabels({ app: 'zk' })
    .withPodAntiAffinity(affinityTerm({ team: 'batch' }, ZONE))
    .onNode('node-a1')
    .build();

  it('rejects a node in the domain of an existing pod that repels the incoming pod', () => {
    const s = run(pod('job-0').withLabels({ team: 'batch' }).build(), a2, [guard]);
    expect(s).toMatchObject({ code: 'Unschedulable', reasons: [REASON_EXISTING_ANTI_AFFINITY] });
    expect(REASON_EXISTING_ANTI_AFFINITY).toBe("node(s) didn't satisfy existing pods anti-affinity rules");
    expect(s.details?.[0]).toContain('pod default/zk-0 on node node-a1');
  });

  it('passes other domains and pods the term does not select', () => {
    expect(run(pod('job-0').withLabels({ team: 'batch' }).build(), b1, [guard]).code).toBe('Success');
    expect(run(pod('web-0').withLabels({ team: 'web' }).build(), a2, [guard]).code).toBe('Success');
  });

  it('counts pods on a template node that is not in the view', () => {
    const template = node('template-node-for-ng-b-1').inZone('us-east-1c').build();
    const ds = pod('zk-agent-x', 'kube-system')
      .withPodAntiAffinity(affinityTerm({ team: 'batch' }, HOST, { namespaces: ['default'] }))
      .onNode('template-node-for-ng-b-1')
      .build();
    const view = buildClusterView({ nodes, pods: [] });
    expect(
      interPodAffinity(pod('job-0').withLabels({ team: 'batch' }).build(), nodeInfoFor(template, [ds]), view)
        .code,
    ).toBe('Unschedulable');
    expect(
      interPodAffinity(pod('job-0').withLabels({ team: 'batch' }).build(), nodeInfoFor(template, []), view)
        .code,
    ).toBe('Success');
  });

  it('checks the pod’s affinity before its anti-affinity and before existing pods', () => {
    const p = pod('job-0')
      .withLabels({ team: 'batch' })
      .withPodAffinity(affinityTerm({ app: 'nowhere' }, ZONE))
      .withPodAntiAffinity(affinityTerm({ app: 'zk' }, ZONE))
      .build();
    expect(run(p, a2, [guard]).reasons).toEqual([REASON_POD_AFFINITY]);
  });

  it('reports an invalid label selector as an error', () => {
    const p = pod('x')
      .withPodAntiAffinity({
        topologyKey: HOST,
        labelSelector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] },
      })
      .build();
    expect(run(p, a1, []).code).toBe('Error');
  });
});
