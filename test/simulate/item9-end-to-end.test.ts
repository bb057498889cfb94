// Issue 24 item 9, end to end through why-pending (the predicates have their own tests in upstream-behaviours.test.ts):
// kube-scheduler volumezone/volume_zone.go getPVbyPod skips an unbound claim of a WaitForFirstConsumer class;
// volumebinding/volume_binding.go PreFilter fails a missing claim with the lister's NotFound, verbatim;
// cluster-autoscaler cloudprovider/aws/aws_manager.go:186@cluster-autoscaler-1.36.1 getAsgTemplate: "unable to get first AvailabilityZone for ASG %q".
import { describe, expect, it } from 'vitest';
import { analyze } from '../checks/harness.js';
import { asg } from '../builders/aws.js';
import { pvc, storageClass } from '../builders/k8s.js';
import { pendingPod, world } from '../builders/world.js';

function verdictOf(raw: ReturnType<typeof world>['raw'], name: string) {
  const { pods, findings } = analyze(raw);
  const p = pods.find((x) => x.report.name === name)!;
  return { report: p.report, findings: findings.filter((f) => f.subject.name === name || f.subject.name === p.report.name) };
}

describe('item 9 through why-pending', () => {
  it('an unbound claim of a WaitForFirstConsumer class does not stop a scale-up (the volume is made where the pod lands)', () => {
    const w = world();
    w.raw.pods.push(pendingPod('db-7f9c8d6b5-x2x7q').withPvc('data-db-0').build());
    w.add('pvcs', pvc('data-db-0', 'web').build());
    w.add('pvs');
    w.add('storageClasses', storageClass('gp3').build());
    const { report } = verdictOf(w.raw, 'db-7f9c8d6b5-x2x7q');
    expect([report.verdict, report.summary]).toEqual(['scale-up', expect.stringContaining('prod-general')]);
  });

  it('the same claim of an Immediate class that is still unbound stops it: the scheduler waits for the binding', () => {
    const w = world();
    w.raw.pods.push(pendingPod('db-7f9c8d6b5-x2x7q').withPvc('data-db-0').build());
    w.add('pvcs', pvc('data-db-0', 'web').build());
    w.add('pvs');
    w.add('storageClasses', storageClass('gp3').immediate().build());
    expect(verdictOf(w.raw, 'db-7f9c8d6b5-x2x7q').report.verdict).not.toBe('scale-up');
  });

  it('a claim that does not exist: the scheduler\'s words, and no node group can help', () => {
    const w = world();
    w.raw.pods.push(pendingPod('db-7f9c8d6b5-x2x7q').withPvc('data-db-0').build());
    w.add('pvcs');
    w.add('pvs');
    w.add('storageClasses', storageClass('gp3').build());
    const { report } = verdictOf(w.raw, 'db-7f9c8d6b5-x2x7q');
    expect(report.verdict).toBe('no-scale-up');
    expect(JSON.stringify(report.nodeGroups)).toContain('persistentvolumeclaim \\"data-db-0\\" not found');
  });

  it('an ASG with no AvailabilityZones has no template, in CA\'s words', () => {
    const w = world();
    w.raw.autoScalingGroups.push(
      asg('prod-zoneless').withDiscoveryTags('prod').withZones().withLaunchTemplate({ id: 'lt-0general000000001', version: '$Latest' }).withSizes(0, 5, 0).build(),
    );
    w.raw.pods.push(pendingPod('big-7f9c8d6b5-x2x7q').withRequests({ cpu: '5', memory: '1Gi' }).build());
    const { report } = verdictOf(w.raw, 'big-7f9c8d6b5-x2x7q');
    const g = report.nodeGroups.find((x) => x.name === 'prod-zoneless')!;
    expect(JSON.stringify(g)).toContain('unable to get first AvailabilityZone for ASG \\"prod-zoneless\\"');
  });
});
