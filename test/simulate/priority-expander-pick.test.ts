import { describe, expect, it } from 'vitest';
import { asg, launchTemplateVersion } from '../builders/aws.js';
import { DEFAULT_CA_ARGS, pendingPod, world } from '../builders/world.js';
import { analyze } from '../checks/harness.js';

// CA: expander/priority/priority.go filters the options to the highest priority; expander/chain.go hands the rest on
function twoGroups(expander: string, priorities?: string) {
  const w = world({ caArgs: [...DEFAULT_CA_ARGS, `--expander=${expander}`] });
  w.add(
    'autoScalingGroups',
    asg('prod-batch')
      .withDiscoveryTags('prod')
      .withTag('kubernetes.io/cluster/prod', 'owned')
      .withLaunchTemplate({ id: 'lt-0batch0000000001', version: '$Latest' })
      .withSizes(0, 5, 0)
      .build(),
  );
  w.add('launchTemplateVersions', launchTemplateVersion('lt-0batch0000000001', 1).asDefault().withInstanceType('m5.2xlarge').build());
  w.add('pods', pendingPod().build());
  if (priorities !== undefined)
    w.add('configMaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cluster-autoscaler-priority-expander', namespace: 'kube-system' },
      data: { priorities },
    });
  return analyze(w.raw).pods[0].report;
}

describe('the priority expander in why-pending', () => {
  it('picks the group of the highest priority among those that fit', () => {
    const r = twoGroups('priority,least-waste', "10:\n  - .*batch.*\n1:\n  - .*\n");
    expect(r.nodeGroups.filter((g) => g.fits).map((g) => g.name).sort()).toEqual(['prod-batch', 'prod-general']);
    expect(r.expander).toMatchObject({ name: 'priority', choice: 'prod-batch' });
  });
  it('hands a tie to the next expander of the chain', () => {
    const r = twoGroups('priority,least-waste', '5:\n  - prod-.*\n');
    expect(r.expander?.name).toBe('least-waste');
    expect(r.expander?.choice).toBe('prod-general');
    expect(r.expander?.note).toContain('priority kept prod-batch, prod-general');
  });
  it('filters nothing without the ConfigMap, and says so', () => {
    const r = twoGroups('priority');
    expect(r.expander?.choice).toBeUndefined();
    expect(r.expander?.note).toContain('is not in the input (when it does not exist, priority filters nothing)');
  });
});
