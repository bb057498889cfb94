// Findings that enumerate node groups stay a sentence at hundreds of groups (issue 18): the message names a few and
// counts the rest, the evidence keeps a sample and the total; a short list is written as before.
import { describe, expect, it } from 'vitest';
import { asg, launchTemplateVersion } from '../builders/aws.js';
import { pendingPod, world } from '../builders/world.js';
import { findingsOf } from './harness.js';

/** An empty ASG CA templates from its launch template (c5.2xlarge: 8 vCPU, 16 GiB), discovered by the world's CA. */
function zeroGroup(name: string, tags: Record<string, string> = {}) {
  const lt = `lt-0${name.replace(/\W/g, '')}`.slice(0, 20);
  return {
    asg: asg(name)
      .withDiscoveryTags('prod')
      .withTags(tags)
      .withLaunchTemplate({ id: lt, version: '$Default' })
      .withSizes(0, 10, 0)
      .build(),
    lt: launchTemplateVersion(lt, 1).asDefault().withInstanceType('c5.2xlarge').build(),
  };
}

/** The world (prod-general, one m5.xlarge node) and `n` more empty groups prod-pool-00 ... */
function withGroups(n: number, tags: (i: number) => Record<string, string> = () => ({})) {
  const w = world();
  for (let i = 0; i < n; i++) {
    const g = zeroGroup(`prod-pool-${String(i).padStart(2, '0')}`, tags(i));
    w.add('autoScalingGroups', g.asg).add('launchTemplateVersions', g.lt);
  }
  return w;
}

const bigPod = () => pendingPod('spark-driver', 'analytics').withRequests({ cpu: '16', memory: '200Gi' }).build();

describe('pod-insufficient-resources with many node groups', () => {
  it('names three groups and says how many more, and keeps five templates and the count as evidence', () => {
    const w = withGroups(11).add('pods', bigPod());
    const [f] = findingsOf(w.raw, 'pod-insufficient-resources');
    // prod-general and the 11 pools: all too small, all equally close
    expect(f.message).toContain('more than the templates of 12 node groups can hold: ');
    expect(f.message).toMatch(/prod-pool-01 \(c5\.2xlarge\): Insufficient cpu, Insufficient memory; and 9 more node groups\.$/);
    expect(f.message.match(/\(c5\.2xlarge\)|\(m5\.xlarge\)/g)).toHaveLength(3);
    expect(f.evidence).toHaveLength(6);
    expect(f.evidence.slice(0, 5).every((e) => /template \(/.test(e.source))).toBe(true);
    expect(f.evidence[5]).toEqual({
      source: '7 more node group templates too small for the pod',
      observed: 'not listed (12 in all); -o wide lists every node group',
    });
  });

  it('lists every group as before when there are three', () => {
    const w = withGroups(2).add('pods', bigPod());
    const [f] = findingsOf(w.raw, 'pod-insufficient-resources');
    expect(f.message).toMatch(/can hold: prod-general \(m5\.xlarge\): [^;]+; prod-pool-00 \(c5\.2xlarge\): [^;]+; prod-pool-01 \(c5\.2xlarge\): Insufficient cpu, Insufficient memory\.$/);
    expect(f.message).not.toContain('more node groups');
    expect(f.evidence).toHaveLength(3);
  });
});

describe('pod-node-selector-mismatch with many node groups', () => {
  const selecting = () => pendingPod('report-1', 'batch').withNodeSelector({ 'node-pool': 'batch' }).build();

  it('names three of the equally close groups, counts the rest, and samples the evidence', () => {
    const w = withGroups(20).add('pods', selecting());
    const [f] = findingsOf(w.raw, 'pod-node-selector-mismatch');
    expect(f.message).toMatch(/closest: prod-general \([^)]*\), prod-pool-00 \([^)]*\), prod-pool-01 \([^)]*\) and 18 more node groups as close\.$/);
    expect(f.evidence).toHaveLength(6);
    expect(f.evidence[5].source).toBe("16 more node group templates without the pod's labels");
    expect(f.evidence[5].observed).toBe('not listed (21 in all); -o wide lists every node group');
    // one tag command per named group (listNames: five), not one per group
    expect(f.remediation!.match(/create-or-update-tags/g)).toHaveLength(5);
    expect(f.remediation).toContain('prod-general, prod-pool-00, prod-pool-01, prod-pool-02, prod-pool-03 and 16 more is meant');
  });

  it('keeps a list of up to eight templates whole', () => {
    const w = withGroups(7).add('pods', selecting());
    const [f] = findingsOf(w.raw, 'pod-node-selector-mismatch');
    expect(f.evidence).toHaveLength(8);
    expect(f.evidence.map((e) => e.source.split(' ')[0])).toEqual([
      'prod-general',
      ...Array.from({ length: 7 }, (_, i) => `prod-pool-0${i}`),
    ]);
    expect(f.message).toContain('and 5 more node groups as close.');
  });

  it('names the one closest group alone, as before', () => {
    const w = withGroups(20, (i): Record<string, string> => (i === 4 ? { Name: 'batch-pool' } : {})).add('pods', selecting());
    const [f] = findingsOf(w.raw, 'pod-node-selector-mismatch');
    expect(f.message).toMatch(/closest: prod-pool-04 \(nodeSelector node-pool=batch, node has no label node-pool\)\.$/);
    expect(f.nodeGroup).toBe('prod-pool-04');
  });
});

describe('ca-event-disagrees with one reason per dedicated group', () => {
  function event(message: string) {
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'api-7f9c8d6b5-x2x7q.1870a1b2c3d4e5f6', namespace: 'web' },
      involvedObject: { kind: 'Pod', namespace: 'web', name: 'api-7f9c8d6b5-x2x7q', uid: pendingPod().build().metadata.uid },
      reason: 'NotTriggerScaleUp',
      message,
      type: 'Normal',
      count: 3,
      firstTimestamp: '2026-01-05T11:40:00Z',
      lastTimestamp: '2026-01-05T11:58:00Z',
      source: { component: 'cluster-autoscaler' },
    };
  }
  const taints = (n: number) =>
    Array.from({ length: n }, (_, i) => `1 node(s) had untolerated taint {dedicated: team-${String(i).padStart(2, '0')}}`);
  const dedicated = (i: number) => ({ 'k8s.io/cluster-autoscaler/node-template/taint/dedicated': `team-${String(i).padStart(2, '0')}:NoSchedule` });

  it('names only the reasons that differ and counts those that agree', () => {
    // CA saw two groups short of cpu; casdoctor one (prod-general), and the same ten dedicated groups
    const w = withGroups(10, dedicated)
      .add('pods', pendingPod().withRequests({ cpu: '8' }).build())
      .add('events', event(`pod didn't trigger scale-up: 2 Insufficient cpu, ${taints(10).join(', ')}`));
    const [f] = findingsOf(w.raw, 'ca-event-disagrees');
    expect(f.message).toBe(
      "Pod web/api-7f9c8d6b5-x2x7q: CA's reasons (2 Insufficient cpu; 10 more as casdoctor's) differ from casdoctor's (1 Insufficient cpu; 10 more as CA's).",
    );
    expect(f.evidence.map((e) => e.observed)).toEqual(["2 Insufficient cpu; 10 more as casdoctor's", "1 Insufficient cpu; 10 more as CA's"]);
  });

  it('quotes a long CA event by its first reasons and counts the others', () => {
    const w = withGroups(10, dedicated)
      .add('pods', pendingPod().build())
      .add('events', event(`pod didn't trigger scale-up: 1 max node group size reached, ${taints(10).join(', ')}`));
    const [f] = findingsOf(w.raw, 'ca-event-disagrees');
    expect(f.message).toContain(
      'CA said "pod didn\'t trigger scale-up: 1 max node group size reached, 1 node(s) had untolerated taint {dedicated: team-00}, 1 node(s) had untolerated taint {dedicated: team-01} and 8 more reasons" ',
    );
    expect(f.message).toContain('but casdoctor finds that prod-general can host it now.');
    expect(f.evidence[0].observed).toMatch(/\{dedicated: team-03\} and 6 more reasons$/);
  });

  it('writes a short reason list whole, as before', () => {
    const w = withGroups(2, dedicated)
      .add('pods', pendingPod().withRequests({ cpu: '8' }).build())
      .add('events', event(`pod didn't trigger scale-up: 2 Insufficient cpu, ${taints(2).join(', ')}`));
    const [f] = findingsOf(w.raw, 'ca-event-disagrees');
    expect(f.message).toBe(
      `Pod web/api-7f9c8d6b5-x2x7q: CA's reasons (2 Insufficient cpu, ${taints(2).join(', ')}) differ from casdoctor's (1 Insufficient cpu, ${taints(2).join(', ')}).`,
    );
  });
});

describe('one finding per closest group, bounded', () => {
  const dedicated = (i: number) => ({ 'k8s.io/cluster-autoscaler/node-template/taint/dedicated': `team-${String(i).padStart(2, '0')}:NoSchedule` });
  // only the dedicated groups carry the label the pod selects, so they are the closest
  const selected = (i: number) => ({ ...dedicated(i), 'k8s.io/cluster-autoscaler/node-template/label/tier': 'batch' });
  const pod = () => pendingPod('etl-1', 'batch').withNodeSelector({ tier: 'batch' }).build();

  it('pod-untolerated-taint reports three of twelve tainted groups, the third counting the other nine', () => {
    const w = withGroups(12, selected).add('pods', pod());
    const fs = findingsOf(w.raw, 'pod-untolerated-taint');
    expect(fs.map((f) => f.nodeGroup)).toEqual(['prod-pool-00', 'prod-pool-01', 'prod-pool-02']);
    expect(fs[0].evidence).toHaveLength(2);
    expect(fs[2].evidence[2]).toEqual({
      source: '9 more node groups',
      observed: 'fail the same check, not reported one by one (12 in all); -o wide lists every node group',
    });
  });

  it('pod-untolerated-taint reports each of two tainted groups, as before', () => {
    const w = withGroups(2, selected).add('pods', pod());
    const fs = findingsOf(w.raw, 'pod-untolerated-taint');
    expect(fs.map((f) => f.nodeGroup)).toEqual(['prod-pool-00', 'prod-pool-01']);
    expect(fs.every((f) => f.evidence.length === 2)).toBe(true);
  });
});
