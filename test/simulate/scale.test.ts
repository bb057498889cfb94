import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/model/k8s.js';
import { buildClusterView, explainAgainstNodes } from '../../src/simulate/scheduler.js';
import { affinityTerm, node, pod } from '../builders/k8s.js';

describe('scale', () => {
  it('builds a 5,000-node / 100,000-pod view and explains a constrained pod in near-linear time', () => {
    const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
    const nodes = Array.from({ length: 5000 }, (_, i) =>
      node(`ip-10-0-${i >> 8}-${i & 255}.ec2.internal`)
        .inZone(zones[i % 3])
        .build(),
    );
    const template = pod('web-x')
      .withLabels({ app: 'web' })
      .withRequests({ cpu: '100m', memory: '128Mi' })
      .onNode('x')
      .build();
    const pods: Pod[] = [];
    for (let i = 0; i < 100_000; i++) {
      const nodeName = nodes[i % 5000].metadata.name!;
      pods.push({
        ...template,
        metadata: {
          ...template.metadata,
          name: `web-${i}`,
          uid: `uid-${i}`,
          labels: { app: i % 2 ? 'web' : 'api' },
        },
        spec: { ...template.spec, nodeName },
      });
    }
    const started = performance.now();
    const view = buildClusterView({ nodes, pods });
    const incoming = pod('web-new')
      .withLabels({ app: 'web' })
      .withRequests({ cpu: '100m' })
      .withTopologySpread({
        topologyKey: 'topology.kubernetes.io/zone',
        maxSkew: 100,
        labelSelector: { matchLabels: { app: 'web' } },
      })
      .withPodAntiAffinity(affinityTerm({ app: 'web' }, 'kubernetes.io/hostname'))
      .build();
    const e = explainAgainstNodes(incoming, view);
    const elapsed = performance.now() - started;
    expect(view.nodeInfos[0].pods).toHaveLength(20);
    // web pods sit on the odd-numbered nodes only, so hostname anti-affinity leaves the 2,500 even ones
    expect(e.fittingNodes).toHaveLength(2500);
    expect(e.nodes[1].reasons).toEqual(["node(s) didn't match pod anti-affinity rules"]);
    expect(e.message).toBe('');
    // quadratic work (nodes x pods = 5e8) would take minutes; linear work takes well under a few seconds
    expect(elapsed).toBeLessThan(15_000);
  });
});
