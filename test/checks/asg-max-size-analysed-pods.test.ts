// asg-max-size-pending-pods analyses only the Pending pods that pass an at-max group's template; what it reports must
// not depend on whether why-pending's full analysis ran first.
import { describe, expect, it } from 'vitest';
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { analyzePods, blockedPodsPassingGroups } from '../../src/simulate/why-pending.js';
import { isPendingCandidate } from '../../src/model/k8s.js';
import { asg, launchTemplateVersion, REGION } from '../builders/aws.js';
import { NOW, pendingPod, world } from '../builders/world.js';
import { STATIC_TYPES } from './harness.js';

function cluster(): RawInputs {
  const w = world();
  // prod-general (node-pool=general, one m5.xlarge node) is at its max size
  w.raw.autoScalingGroups[0].MaxSize = 1;
  // prod-batch has room and no nodes: CA builds its template from the launch template (no node-pool label)
  w.add(
    'autoScalingGroups',
    asg('prod-batch')
      .withDiscoveryTags('prod')
      .withTag('kubernetes.io/cluster/prod', 'owned')
      .withZones(`${REGION}a`)
      .withLaunchTemplate({ id: 'lt-0batch00000000001', version: '$Default' })
      .withSizes(0, 10, 0)
      .build(),
  );
  w.add('launchTemplateVersions', launchTemplateVersion('lt-0batch00000000001', 1).asDefault().withInstanceType('m5.large').build());
  w.add(
    'pods',
    // fits only prod-general's template: blocked by the max size
    pendingPod('reports-6b7f9c4d8-k2m4p').withNodeSelector({ 'node-pool': 'general' }).build(),
    // fits prod-general's template and prod-batch's: CA scales prod-batch, nothing to report
    pendingPod('queue-5d8c7b6f9-w7x2q').build(),
    // fits no template at all
    pendingPod('gpu-7c9d8f6b5-r4t8z').withNodeSelector({ 'node-pool': 'gpu' }).build(),
  );
  return w.raw;
}

function analysis(raw: RawInputs): Analysis {
  const a = new Analysis(raw, { now: NOW, staticInstanceTypes: STATIC_TYPES, podScope: isPendingCandidate });
  return a;
}

const names = (pods: { pod: { metadata: { name?: string } } }[]) => pods.map((p) => p.pod.metadata.name);

describe('asg-max-size-pending-pods on the pods it analyses', () => {
  it('reports only the pod blocked by the group at max size', () => {
    const { findings } = runChecks(CHECKS, analysis(cluster()), 'asg-audit');
    const f = findings.filter((x) => x.checkId === 'asg-max-size-pending-pods');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ nodeGroup: 'prod-general', caReason: 'max node group size reached' });
    expect(f[0].message).toContain('web/reports-6b7f9c4d8-k2m4p');
    expect(f[0].message).not.toContain('queue-5d8c7b6f9-w7x2q');
  });

  it('finds the same pods with and without why-pending’s full analysis, and the same as filtering it', () => {
    const fresh = analysis(cluster());
    const atMax = (a: Analysis) => a.nodeGroups.filter((g) => g.targetSize >= g.maxSize);
    const alone = blockedPodsPassingGroups(fresh, atMax(fresh));

    const full = analysis(cluster());
    const all = analyzePods(full);
    const reused = blockedPodsPassingGroups(full, atMax(full));
    const filtered = all.filter(
      (p) =>
        p.report.verdict === 'no-scale-up' &&
        p.groups.some((e) => e.group.targetSize >= e.group.maxSize && e.template.node && e.failures.length === 0 && e.notEvaluated.length === 0),
    );
    expect(names(alone)).toEqual(['reports-6b7f9c4d8-k2m4p']);
    expect(names(reused)).toEqual(names(alone));
    expect(names(filtered)).toEqual(names(alone));
    expect(alone.map((p) => p.report)).toEqual(reused.map((p) => p.report));
    // the full analysis examined all three; the pod fitting no template is blocked too, but not by the max size
    expect(all.map((p) => p.report.verdict).sort()).toEqual(['no-scale-up', 'no-scale-up', 'scale-up']);
  });
});
