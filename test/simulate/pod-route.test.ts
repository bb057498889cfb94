// Issue 24: decidePodRoute, the one place that decides who serves a pod that waits for a node and the verdict that
// follows (src/simulate/providers/karpenter/routing.ts).
import { describe, expect, it } from 'vitest';
import type { AutoscalerVerdict } from '../../src/model/why-pending.js';
import { decidePodRoute, requiresKarpenterNode } from '../../src/simulate/providers/karpenter/routing.js';
import type { Pod } from '../../src/model/k8s.js';

const ca = (verdict: AutoscalerVerdict['verdict'], summary = `ca ${verdict}`): AutoscalerVerdict => ({ verdict, summary });
const karp = (verdict: AutoscalerVerdict['verdict'], summary = `Karpenter ${verdict}`): AutoscalerVerdict => ({ verdict, summary });

describe('decidePodRoute', () => {
  it.each([
    // [CA, Karpenter, route, verdict, audience]
    [ca('scale-up'), karp('scale-up'), 'both', 'scale-up', ['ca', 'karpenter']],
    [ca('scale-up'), karp('no-scale-up'), 'ca', 'scale-up', ['ca']],
    [ca('no-scale-up'), karp('scale-up'), 'karpenter', 'scale-up', ['karpenter']],
    [ca('ignored'), karp('scale-up'), 'karpenter', 'scale-up', ['karpenter']],
    [ca('scale-up'), karp('ignored'), 'ca', 'scale-up', ['ca']],
    [ca('no-scale-up'), karp('no-scale-up'), 'neither', 'no-scale-up', ['ca', 'karpenter']],
    [ca('no-scale-up'), karp('ignored'), 'neither', 'no-scale-up', ['ca']],
    [ca('ignored'), karp('no-scale-up'), 'neither', 'no-scale-up', ['karpenter']],
    [ca('ignored'), karp('ignored'), 'neither', 'ignored', ['ca', 'karpenter']],
    [ca('not-evaluated'), karp('no-scale-up'), 'unknown', 'not-evaluated', ['ca', 'karpenter']],
    [ca('not-evaluated'), karp('scale-up'), 'karpenter', 'scale-up', ['karpenter']],
  ] as const)('CA %o, Karpenter %o: %s, %s', (c, k, route, verdict, audience) => {
    const d = decidePodRoute({ ca: c, karpenter: k });
    expect([d.route, d.verdict, d.audience]).toEqual([route, verdict, audience]);
  });

  it("passes one autoscaler's verdict and summary through unchanged (a CA-only cluster's report stays as it was)", () => {
    expect(decidePodRoute({ ca: ca('no-scale-up', 'no node group can host it') })).toEqual({
      route: 'neither',
      verdict: 'no-scale-up',
      summary: 'no node group can host it',
      audience: ['ca'],
    });
    expect(decidePodRoute({ ca: ca('ignored', 'CA ignores this pod: x') })).toMatchObject({ route: 'neither', verdict: 'ignored', summary: 'CA ignores this pod: x' });
    expect(decidePodRoute({ karpenter: karp('scale-up', 'Karpenter launches a node in NodePool general') })).toMatchObject({ route: 'karpenter', verdict: 'scale-up', audience: ['karpenter'] });
  });

  it('names each side in a summary of both, unless the side already says who it is', () => {
    const d = decidePodRoute({ ca: ca('no-scale-up', 'no node group can host it'), karpenter: karp('no-scale-up', 'no NodePool fits it: general: requirements') });
    expect(d.summary).toBe('CA: no node group can host it; Karpenter: no NodePool fits it: general: requirements');
    const both = decidePodRoute({ ca: ca('scale-up', 'CA can scale up a'), karpenter: karp('scale-up', 'Karpenter launches a node in NodePool general') });
    expect(both.summary).toBe("CA can scale up a; Karpenter launches a node in NodePool general; either may act first, and the other's node may then be wasted");
  });

  it('gives a pod meant for Karpenter only Karpenter\'s findings when no autoscaler provisions', () => {
    expect(decidePodRoute({ ca: ca('no-scale-up'), karpenter: karp('no-scale-up'), meantFor: 'karpenter' }).audience).toEqual(['karpenter']);
    // one Karpenter ignores stays CA's (its own opt-out, not a request for Karpenter)
    expect(decidePodRoute({ ca: ca('no-scale-up'), karpenter: karp('ignored'), meantFor: 'karpenter' }).audience).toEqual(['ca']);
  });
});

describe('requiresKarpenterNode', () => {
  const pod = (spec: Partial<Pod['spec']>): Pod => ({ metadata: { name: 'p', namespace: 'n' }, spec: { containers: [], ...spec } }) as Pod;
  const term = (key: string, operator: string) => ({ matchExpressions: [{ key, operator, ...(operator === 'In' ? { values: ['batch'] } : {}) }] });
  it.each([
    ['a nodeSelector on karpenter.sh/nodepool', pod({ nodeSelector: { 'karpenter.sh/nodepool': 'batch' } }), true],
    ['required affinity In', pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term('karpenter.sh/nodepool', 'In')] } } } }), true],
    ['required affinity Exists', pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term('karpenter.sh/nodepool', 'Exists')] } } } }), true],
    ['DoesNotExist (an opt-out)', pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term('karpenter.sh/nodepool', 'DoesNotExist')] } } } }), false],
    ['one OR term without it', pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term('karpenter.sh/nodepool', 'In'), term('role', 'Exists')] } } } }), false],
    ['no selector', pod({}), false],
  ] as const)('%s: %s', (_name, p, expected) => {
    expect(requiresKarpenterNode(p)).toBe(expected);
  });
});
