import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../src/model/k8s.js';
import {
  POD_TOPOLOGY_SPREAD,
  podTopologySpread,
  REASON_TOPOLOGY_SPREAD,
  REASON_TOPOLOGY_SPREAD_MISSING_LABEL,
} from '../../src/simulate/predicates/pod-topology-spread.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import { node, pod, term } from '../builders/k8s.js';

const ZONE = 'topology.kubernetes.io/zone';
const a = node('node-a').inZone('us-east-1a').build();
const b = node('node-b').inZone('us-east-1b').build();
const c = node('node-c').inZone('us-east-1c').build();

function web(name: string, nodeName: string, extra: Record<string, string> = {}): Pod {
  return pod(name)
    .withLabels({ app: 'web', ...extra })
    .onNode(nodeName)
    .build();
}

function incoming(
  constraint: Parameters<ReturnType<typeof pod>['withTopologySpread']>[0] = { topologyKey: ZONE },
) {
  return pod('web-new')
    .withLabels({ app: 'web', 'pod-template-hash': '7d9f' })
    .withTopologySpread({
      labelSelector: { matchLabels: { app: 'web' } },
      ...constraint,
    });
}

function filterOn(p: Pod, target: Node, nodes: Node[], pods: Pod[]) {
  const view = buildClusterView({ nodes, pods });
  const ni =
    view.nodeInfos.find((x) => x.node.metadata.name === target.metadata.name) ?? nodeInfoFor(target, []);
  return podTopologySpread(p, ni, view);
}

// zone a: 2 web pods, zone b: 1, zone c: 0
const pods = [web('web-1', 'node-a'), web('web-2', 'node-a'), web('web-3', 'node-b')];

describe('PodTopologySpread', () => {
  it('rejects the most loaded zone when the skew would exceed maxSkew', () => {
    const s = filterOn(incoming().build(), a, [a, b, c], pods);
    expect(s).toMatchObject({
      plugin: POD_TOPOLOGY_SPREAD,
      code: 'Unschedulable',
      reasons: [REASON_TOPOLOGY_SPREAD],
    });
    expect(REASON_TOPOLOGY_SPREAD).toBe("node(s) didn't match pod topology spread constraints");
    expect(s.details).toEqual([
      'constraint topology.kubernetes.io/zone maxSkew 1 (selector app=web): topology.kubernetes.io/zone=us-east-1a has 2 matching pod(s) + this pod, global minimum 0 (topology.kubernetes.io/zone=us-east-1c), skew 3 > 1',
    ]);
  });

  it('accepts the emptiest zone and a zone within maxSkew', () => {
    expect(filterOn(incoming().build(), c, [a, b, c], pods).code).toBe('Success');
    expect(filterOn(incoming({ topologyKey: ZONE, maxSkew: 2 }).build(), b, [a, b, c], pods).code).toBe(
      'Success',
    );
  });

  it('rejects a node without the topology key as unresolvable', () => {
    const bare = node('bare').withoutLabel(ZONE).build();
    const s = filterOn(incoming().build(), bare, [a, b, c, bare], pods);
    expect(s).toMatchObject({
      code: 'UnschedulableAndUnresolvable',
      reasons: [REASON_TOPOLOGY_SPREAD_MISSING_LABEL],
    });
    expect(REASON_TOPOLOGY_SPREAD_MISSING_LABEL).toBe(
      "node(s) didn't match pod topology spread constraints (missing required label)",
    );
  });

  it('leaves out domains of nodes the pod cannot select (nodeAffinityPolicy Honor, the default)', () => {
    // zone c is excluded by the pod's node affinity, so the minimum is zone b's 1: zone a gives 2 + 1 - 1 = 2 > 1
    const p = incoming()
      .withRequiredNodeAffinity(term(ZONE, 'In', ['us-east-1a', 'us-east-1b']))
      .build();
    const s = filterOn(p, a, [a, b, c], pods);
    expect(s.details?.[0]).toContain('global minimum 1 (topology.kubernetes.io/zone=us-east-1b), skew 2 > 1');
    expect(filterOn(p, b, [a, b, c], pods).code).toBe('Success');
  });

  it('counts every domain with nodeAffinityPolicy Ignore', () => {
    const p = incoming({ topologyKey: ZONE, nodeAffinityPolicy: 'Ignore' })
      .withRequiredNodeAffinity(term(ZONE, 'In', ['us-east-1a', 'us-east-1b']))
      .build();
    expect(filterOn(p, b, [a, b, c], pods).details?.[0]).toContain(
      'global minimum 0 (topology.kubernetes.io/zone=us-east-1c)',
    );
  });

  it('leaves out tainted nodes only with nodeTaintsPolicy Honor', () => {
    const tainted = node('node-c').inZone('us-east-1c').withTaint('dedicated', 'batch').build();
    expect(filterOn(incoming().build(), b, [a, b, tainted], pods).code).toBe('Unschedulable');
    expect(
      filterOn(incoming({ topologyKey: ZONE, nodeTaintsPolicy: 'Honor' }).build(), b, [a, b, tainted], pods)
        .code,
    ).toBe('Success');
  });

  it('treats the global minimum as 0 while there are fewer domains than minDomains', () => {
    const twoZones = [web('web-1', 'node-a'), web('web-3', 'node-b')];
    expect(filterOn(incoming().build(), a, [a, b], twoZones).code).toBe('Success');
    const s = filterOn(incoming({ topologyKey: ZONE, minDomains: 3 }).build(), a, [a, b], twoZones);
    expect(s.code).toBe('Unschedulable');
    expect(s.details?.[0]).toContain('global minimum 0 (2 domain(s) < minDomains 3)');
  });

  it('narrows the selector with matchLabelKeys to the pod’s own revision', () => {
    const old = [
      web('web-1', 'node-a', { 'pod-template-hash': 'old' }),
      web('web-2', 'node-a', { 'pod-template-hash': 'old' }),
    ];
    const p = incoming({ topologyKey: ZONE, matchLabelKeys: ['pod-template-hash'] }).build();
    expect(filterOn(p, a, [a, b, c], old).code).toBe('Success');
  });

  it('counts only pods of the same namespace that are not terminating', () => {
    const others = [
      pod('web-1', 'staging').withLabels({ app: 'web' }).onNode('node-a').build(),
      pod('web-2').withLabels({ app: 'web' }).onNode('node-a').terminating().build(),
    ];
    expect(filterOn(incoming().build(), a, [a, b, c], others).code).toBe('Success');
  });

  it('ignores ScheduleAnyway constraints', () => {
    const p = incoming({ topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway' }).build();
    expect(filterOn(p, a, [a, b, c], pods).code).toBe('Success');
  });

  it('does not count the pod itself when it does not match its own selector', () => {
    const p = pod('other')
      .withLabels({ app: 'other' })
      .withTopologySpread({
        topologyKey: ZONE,
        labelSelector: { matchLabels: { app: 'web' } },
      });
    // zone b: 1 + 0 - 0 = 1 <= 1
    expect(filterOn(p.build(), b, [a, b, c], pods).code).toBe('Success');
  });

  it('matches nothing with an empty selector, as upstream counts 0 for labels.Everything()', () => {
    const p = incoming({ topologyKey: ZONE, labelSelector: {} }).build();
    expect(filterOn(p, a, [a, b, c], pods).code).toBe('Success');
  });

  it('adds a template node that is not in the view as a new empty domain', () => {
    // only zones a (2) and b (1) exist; a template node in zone c makes the minimum 0
    const template = node('template-node-for-ng-c-123').inZone('us-east-1c').build();
    const p = incoming().build();
    expect(filterOn(p, b, [a, b], pods).code).toBe('Success');
    const view = buildClusterView({ nodes: [a, b], pods });
    expect(podTopologySpread(p, nodeInfoFor(template, []), view).code).toBe('Success');
    // a template in zone a adds to zone a, still over the skew
    const templateA = node('template-node-for-ng-a-456').inZone('us-east-1a').build();
    expect(podTopologySpread(p, nodeInfoFor(templateA, []), view).code).toBe('Unschedulable');
  });

  it('spreads per hostname', () => {
    const p = incoming({ topologyKey: 'kubernetes.io/hostname' }).build();
    expect(filterOn(p, a, [a, b, c], pods).code).toBe('Unschedulable');
    expect(filterOn(p, c, [a, b, c], pods).code).toBe('Success');
  });

  it('reports an invalid selector as an error', () => {
    const p = incoming({
      topologyKey: ZONE,
      labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] },
    }).build();
    expect(filterOn(p, a, [a, b, c], pods).code).toBe('Error');
  });
});
