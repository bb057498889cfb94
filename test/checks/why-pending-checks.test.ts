// Each why-pending check: at least one case that fires and one that must not.
import { describe, expect, it } from 'vitest';
import type { ConfigMap, DaemonSet } from '../../src/model/k8s.js';
import { asg, launchTemplateVersion, scalingActivity } from '../builders/aws.js';
import { node, pod, pv, pvc, storageClass } from '../builders/k8s.js';
import {
  caDeployment,
  DEFAULT_CA_ARGS,
  filler,
  instanceIdOf,
  NOW,
  pendingPod,
  world,
} from '../builders/world.js';
import { analyze, findingsOf } from './harness.js';

function zeroGroup(name: string, tags: Record<string, string> = {}, type = 'c5.2xlarge') {
  return {
    asg: asg(name)
      .withDiscoveryTags('prod')
      .withTags(tags)
      .withLaunchTemplate({ id: `lt-0${name.replace(/\W/g, '')}`.slice(0, 20), version: '$Default' })
      .withSizes(0, 10, 0)
      .build(),
    lt: launchTemplateVersion(`lt-0${name.replace(/\W/g, '')}`.slice(0, 20), 1)
      .asDefault()
      .withInstanceType(type)
      .build(),
  };
}

function statusConfigMap(
  groupYaml: string,
  lastUpdated = '2026-01-05 11:59:50.118246319 +0000 UTC',
): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cluster-autoscaler-status',
      namespace: 'kube-system',
      annotations: { 'cluster-autoscaler.kubernetes.io/last-updated': lastUpdated },
    },
    data: {
      status: `time: ${lastUpdated}
autoscalerStatus: Running
clusterWide:
  health:
    status: Healthy
    nodeCounts:
      registered:
        total: 1
        ready: 1
        notStarted: 0
        beingDeleted: 0
        unready:
          total: 0
          resourceUnready: 0
      longUnregistered: 0
      unregistered: 0
    lastProbeTime: "2026-01-05T11:59:50.118246319Z"
    lastTransitionTime: "2026-01-05T09:00:00Z"
  scaleUp:
    status: NoActivity
    lastProbeTime: "2026-01-05T11:59:50.118246319Z"
    lastTransitionTime: "2026-01-05T09:00:00Z"
  scaleDown:
    status: NoCandidates
    candidates: 0
    lastProbeTime: "2026-01-05T11:59:50.118246319Z"
    lastTransitionTime: "2026-01-05T09:00:00Z"
nodeGroups:
${groupYaml}`,
    },
  };
}

function groupStatus(name: string, scaleUp: string, health = 'Healthy', backoff = ''): string {
  return `- name: ${name}
  health:
    status: ${health}
    nodeCounts:
      registered:
        total: 1
        ready: 1
        notStarted: 0
        beingDeleted: 0
        unready:
          total: 0
          resourceUnready: 0
      longUnregistered: 0
      unregistered: 0
    cloudProviderTarget: 1
    minSize: 1
    maxSize: 5
    lastProbeTime: "2026-01-05T11:59:50.118246319Z"
    lastTransitionTime: "2026-01-05T09:00:00Z"
  scaleUp:
    status: ${scaleUp}
${backoff}    lastProbeTime: "2026-01-05T11:59:50.118246319Z"
    lastTransitionTime: "2026-01-05T09:00:00Z"
  scaleDown:
    status: NoCandidates
    candidates: 0
    lastProbeTime: "2026-01-05T11:59:50.118246319Z"
    lastTransitionTime: "2026-01-05T09:00:00Z"
`;
}

const nodeExporter: DaemonSet = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'node-exporter', namespace: 'monitoring', uid: 'd5e6f7a8-1111-4222-8333-944455556666' },
  spec: {
    selector: { matchLabels: { app: 'node-exporter' } },
    template: {
      metadata: { labels: { app: 'node-exporter' } },
      spec: {
        tolerations: [{ operator: 'Exists' }],
        containers: [
          {
            name: 'node-exporter',
            image: 'quay.io/prometheus/node-exporter:v1.8.2',
            ports: [{ containerPort: 9100, hostPort: 9100, protocol: 'TCP' }],
            resources: { requests: { cpu: '50m', memory: '64Mi' } },
          },
        ],
      },
    },
  },
};

describe('pod-ignored-by-ca', () => {
  it('fires for a pod whose priority is below --expendable-pods-priority-cutoff', () => {
    const w = world().add('pods', pendingPod().withPriority(-20, 'overprovisioning').build());
    const [f] = findingsOf(w.raw, 'pod-ignored-by-ca');
    expect(f.message).toContain('priority -20 is below --expendable-pods-priority-cutoff=-10');
    expect(f.caReason).toBe('expendable');
  });
  it('fires for a pod the scheduler has not marked Unschedulable yet', () => {
    const w = world().add('pods', pod('fresh', 'web').withRequests({ cpu: '1' }).pending().build());
    expect(findingsOf(w.raw, 'pod-ignored-by-ca')[0].message).toContain('has not marked it Unschedulable');
  });
  it('stays quiet for a pod at the cutoff (the cutoff itself is not expendable)', () => {
    const w = world().add('pods', pendingPod().withPriority(-10).build());
    expect(findingsOf(w.raw, 'pod-ignored-by-ca')).toEqual([]);
  });
});

describe('pod-fits-existing-node', () => {
  it('fires when a Pending pod fits the existing node', () => {
    const w = world().add('pods', pendingPod().withRequests({ cpu: '100m', memory: '128Mi' }).build());
    expect(findingsOf(w.raw, 'pod-fits-existing-node')[0].message).toContain(
      'fits existing node ip-10-0-1-10.ec2.internal',
    );
  });
  it('stays quiet when the existing node is full', () => {
    const w = world().add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'pod-fits-existing-node')).toEqual([]);
  });
});

describe('pod-untolerated-taint', () => {
  const db = zeroGroup(
    'prod-databases',
    {
      'k8s.io/cluster-autoscaler/node-template/label/workload': 'databases',
      'k8s.io/cluster-autoscaler/node-template/taint/dedicated': 'databases:NoSchedule',
    },
    'r5.2xlarge',
  );
  it('fires when the pod selects the tainted group without a toleration, with the toleration to add', () => {
    const w = world().add('autoScalingGroups', db.asg).add('launchTemplateVersions', db.lt);
    w.add('pods', pendingPod('orders-pg-0', 'databases').withNodeSelector({ workload: 'databases' }).build());
    const [f] = findingsOf(w.raw, 'pod-untolerated-taint');
    expect(f.schedulerReason).toBe('node(s) had untolerated taint {dedicated: databases}');
    expect(f.nodeGroup).toBe('prod-databases');
    expect(f.remediation).toContain('key: dedicated');
  });
  it('uses the redacted reason of the scheduler CA 1.35+ vendors (kubernetes#134740)', () => {
    const w = world({ caArgs: DEFAULT_CA_ARGS });
    w.raw.deployments = [
      caDeployment(DEFAULT_CA_ARGS, 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.35.0'),
    ];
    w.add('autoScalingGroups', db.asg).add('launchTemplateVersions', db.lt);
    w.add('pods', pendingPod('orders-pg-0', 'databases').withNodeSelector({ workload: 'databases' }).build());
    const [f] = findingsOf(w.raw, 'pod-untolerated-taint');
    expect(f.schedulerReason).toBe('node(s) had untolerated taint(s)');
    expect(f.message).toContain('dedicated=databases:NoSchedule');
  });
  it('stays quiet when the pod tolerates the taint (and CA scales the group up)', () => {
    const w = world().add('autoScalingGroups', db.asg).add('launchTemplateVersions', db.lt);
    w.add(
      'pods',
      pendingPod('orders-pg-0', 'databases')
        .withNodeSelector({ workload: 'databases' })
        .withToleration({ key: 'dedicated', operator: 'Equal', value: 'databases', effect: 'NoSchedule' })
        .build(),
    );
    expect(findingsOf(w.raw, 'pod-untolerated-taint')).toEqual([]);
  });
});

describe('pod-node-selector-mismatch', () => {
  it('fires when no template carries the selected label, naming the likely group and the tag to add', () => {
    const batch = zeroGroup('prod-batch');
    const w = world().add('autoScalingGroups', batch.asg).add('launchTemplateVersions', batch.lt);
    w.add('pods', pendingPod('report-1', 'batch').withNodeSelector({ 'node-pool': 'batch' }).build());
    const [f] = findingsOf(w.raw, 'pod-node-selector-mismatch');
    expect(f.message).toContain('selects node-pool=batch');
    expect(f.nodeGroup).toBe('prod-batch');
    expect(f.remediation).toContain(
      'Key=k8s.io/cluster-autoscaler/node-template/label/node-pool,Value=batch',
    );
  });
  it('stays quiet once the ASG carries the label tag', () => {
    const batch = zeroGroup('prod-batch', {
      'k8s.io/cluster-autoscaler/node-template/label/node-pool': 'batch',
    });
    const w = world().add('autoScalingGroups', batch.asg).add('launchTemplateVersions', batch.lt);
    w.add('pods', pendingPod('report-1', 'batch').withNodeSelector({ 'node-pool': 'batch' }).build());
    expect(findingsOf(w.raw, 'pod-node-selector-mismatch')).toEqual([]);
  });
});

describe('pod-insufficient-resources', () => {
  it('fires when the request exceeds every template, suggesting larger instance types', () => {
    const w = world().add(
      'pods',
      pendingPod('spark-driver', 'analytics').withRequests({ cpu: '8', memory: '200Gi' }).build(),
    );
    const [f] = findingsOf(w.raw, 'pod-insufficient-resources');
    expect(f.schedulerReason).toBe('Insufficient cpu, Insufficient memory');
    expect(f.remediation).toMatch(/e\.g\. \S+ \(\d+ vCPU, \d+Gi\)/);
  });
  it("points at the resources tag when CA's table gives a GPU instance type 0 GPUs", () => {
    const gpu = zeroGroup(
      'prod-gpu',
      { 'k8s.io/cluster-autoscaler/node-template/label/accelerator': 'nvidia-l4' },
      'g6f.xlarge',
    );
    const w = world().add('autoScalingGroups', gpu.asg).add('launchTemplateVersions', gpu.lt);
    w.add(
      'pods',
      pendingPod('inference-1', 'ml')
        .withNodeSelector({ accelerator: 'nvidia-l4' })
        .withRequests({ cpu: '1', 'nvidia.com/gpu': '1' })
        .withLimits({ 'nvidia.com/gpu': '1' })
        .build(),
    );
    const [f] = findingsOf(w.raw, 'pod-insufficient-resources');
    expect(f.schedulerReason).toBe('Insufficient nvidia.com/gpu');
    expect(f.remediation).toContain(
      'Key=k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu,Value=1',
    );
  });
  it('stays quiet when a template holds the pod', () => {
    const w = world().add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'pod-insufficient-resources')).toEqual([]);
  });
});

describe('pod-volume-zone-conflict', () => {
  function withVolume(zone: string) {
    const w = world();
    const volume = pv('pvc-0b6e3c1a-2f4d-4e8a-9c1b-5d7e9f0a1b2c')
      .inZone(zone)
      .boundTo('data-ledger-0')
      .build();
    const claim = pvc('data-ledger-0', 'web').withStorageClass('gp3').boundTo(volume.metadata.name!).build();
    w.add('pvs', volume)
      .add('pvcs', claim)
      .add('storageClasses', storageClass('gp3').waitForFirstConsumer().build());
    w.add('pods', pendingPod('ledger-0').withPvc('data-ledger-0', 'data').build());
    return w;
  }
  it('fires when the bound EBS volume is in another zone than the template', () => {
    const [f] = findingsOf(withVolume('us-east-1c').raw, 'pod-volume-zone-conflict');
    expect(f.schedulerReason).toBe('node(s) had volume node affinity conflict');
    expect(f.message).toContain('us-east-1a');
  });
  it('stays quiet when the volume is in the template zone', () => {
    expect(findingsOf(withVolume('us-east-1a').raw, 'pod-volume-zone-conflict')).toEqual([]);
  });
});

describe('pod-scheduling-constraint', () => {
  it('fires when the pod wants a host port a DaemonSet pod already holds on the template node', () => {
    const w = world().add('daemonSets', nodeExporter);
    const dsPod = pod('node-exporter-7xk2p', 'monitoring')
      .withRequests({ cpu: '50m', memory: '64Mi' })
      .withHostPort(9100)
      .ownedBy('DaemonSet', 'node-exporter', { uid: nodeExporter.metadata.uid })
      .onNode(w.raw.nodes[0].metadata.name!)
      .build();
    w.add('pods', dsPod, pendingPod().withHostPort(9100).build());
    const [f] = findingsOf(w.raw, 'pod-scheduling-constraint');
    expect(f.schedulerReason).toBe("node(s) didn't have free ports for the requested pod ports");
  });
  it('stays quiet for a free host port', () => {
    const w = world().add('daemonSets', nodeExporter);
    w.add('pods', pendingPod().withHostPort(9200).build());
    expect(findingsOf(w.raw, 'pod-fits-existing-node')).toEqual([]);
    expect(findingsOf(w.raw, 'pod-scheduling-constraint')).toEqual([]);
  });
});

describe('pod-predicate-not-evaluated', () => {
  it('fires when the pod has a PVC but no PVCs were provided', () => {
    const w = world();
    w.raw.provided.delete('pvcs');
    w.raw.provided.delete('pvs');
    w.raw.gaps.push({
      resource: 'persistentvolumeclaims',
      reason: 'forbidden',
      detail: 'forbidden: list persistentvolumeclaims (cluster scope)',
    });
    w.add('pods', pendingPod('ledger-0').withPvc('data-ledger-0', 'data').build());
    expect(findingsOf(w.raw, 'pod-predicate-not-evaluated')[0].message).toContain('VolumeBinding');
  });
  it('fires when an offline dump simply has no PVs (absent data is unknown, not empty)', () => {
    const w = world();
    w.raw.provided.delete('pvs');
    w.add('pvcs', pvc('data-ledger-0', 'web').withStorageClass('gp3').boundTo('pvc-0b6e3c1a-2f4d-4e8a-9c1b-5d7e9f0a1b2c').build());
    w.add('pods', pendingPod('ledger-0').withPvc('data-ledger-0', 'data').build());
    expect(findingsOf(w.raw, 'pod-predicate-not-evaluated')).toHaveLength(1);
  });
  it('stays quiet when volumes could be evaluated', () => {
    const w = world().add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'pod-predicate-not-evaluated')).toEqual([]);
  });
});

describe('node-group-max-size-reached', () => {
  it('fires for the group at max size that the pod fits', () => {
    const w = world();
    w.raw.autoScalingGroups[0].MaxSize = 1;
    w.add('pods', pendingPod().build());
    const [f] = findingsOf(w.raw, 'node-group-max-size-reached');
    expect(f.subject).toEqual({ kind: 'AutoScalingGroup', name: 'prod-general' });
    expect(f.caReason).toBe('max node group size reached');
    expect(f.remediation).toContain('--max-size 3');
  });
  it('stays quiet when the group can grow', () => {
    const w = world().add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'node-group-max-size-reached')).toEqual([]);
  });
});

describe('node-group-backoff and node-group-unhealthy', () => {
  it('fires backoff with the error CA recorded', () => {
    const backoff =
      '    backoffInfo:\n      errorCode: placeholder-cannot-be-fulfilled\n      errorMessage: AWS cannot provision any more instances for this node group\n';
    const w = world().add(
      'configMaps',
      statusConfigMap(groupStatus('prod-general', 'Backoff', 'Healthy', backoff)),
    );
    w.add('pods', pendingPod().build());
    const [f] = findingsOf(w.raw, 'node-group-backoff');
    expect(f.caReason).toBe('in backoff after failed scale-up');
    expect(f.message).toContain('placeholder-cannot-be-fulfilled');
  });
  it('fires unhealthy as "not ready for scale-up"', () => {
    const w = world().add(
      'configMaps',
      statusConfigMap(groupStatus('prod-general', 'Unhealthy', 'Unhealthy')),
    );
    w.add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'node-group-unhealthy')[0].caReason).toBe('not ready for scale-up');
  });
  it('stays quiet with NoActivity', () => {
    const w = world().add('configMaps', statusConfigMap(groupStatus('prod-general', 'NoActivity')));
    w.add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'node-group-backoff')).toEqual([]);
    expect(findingsOf(w.raw, 'node-group-unhealthy')).toEqual([]);
  });
});

describe('node-group-no-template', () => {
  it('fires for a group at zero whose instance type CA does not know', () => {
    const g = zeroGroup('prod-new', {}, 'x9z.mega');
    const w = world().add('autoScalingGroups', g.asg).add('launchTemplateVersions', g.lt);
    w.add('pods', pendingPod().withRequests({ cpu: '30' }).build());
    const [f] = findingsOf(w.raw, 'node-group-no-template');
    expect(f.message).toContain('x9z.mega');
    expect(f.caReason).toBe('not ready for scale-up');
  });
  it('stays quiet when the instance type is known', () => {
    const g = zeroGroup('prod-new', {}, 'm5.2xlarge');
    const w = world().add('autoScalingGroups', g.asg).add('launchTemplateVersions', g.lt);
    w.add('pods', pendingPod().withRequests({ cpu: '30' }).build());
    expect(findingsOf(w.raw, 'node-group-no-template')).toEqual([]);
  });
});

describe('node-group-launch-suspended', () => {
  it('fires when the fitting group has Launch suspended', () => {
    const w = world();
    w.raw.autoScalingGroups[0].SuspendedProcesses = [
      { ProcessName: 'Launch', SuspensionReason: 'User suspended at 2026-01-05T08:00:00Z' },
    ];
    w.add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'node-group-launch-suspended')[0].remediation).toContain('resume-processes');
  });
  it('stays quiet when only AZRebalance is suspended', () => {
    const w = world();
    w.raw.autoScalingGroups[0].SuspendedProcesses = [{ ProcessName: 'AZRebalance' }];
    w.add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'node-group-launch-suspended')).toEqual([]);
  });
});

describe('node-group-not-discovered', () => {
  it('fires when the only fitting group lacks the cluster discovery tag, naming the tag', () => {
    const big = asg('prod-big')
      .withTag('k8s.io/cluster-autoscaler/enabled', 'true')
      .withTag('kubernetes.io/cluster/prod', 'owned')
      .withLaunchTemplate({ id: 'lt-0big0000000000001' })
      .withSizes(0, 4, 0)
      .build();
    const w = world()
      .add('autoScalingGroups', big)
      .add(
        'launchTemplateVersions',
        launchTemplateVersion('lt-0big0000000000001', 1).asDefault().withInstanceType('m5.4xlarge').build(),
      );
    w.add('pods', pendingPod().withRequests({ cpu: '8' }).build());
    const [f] = findingsOf(w.raw, 'node-group-not-discovered');
    expect(f.message).toContain('missing tag "k8s.io/cluster-autoscaler/prod"');
    expect(f.remediation).toContain('Key=k8s.io/cluster-autoscaler/prod');
  });
  it('stays quiet when the fitting group is discovered', () => {
    const w = world().add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'node-group-not-discovered')).toEqual([]);
  });
});

describe('node-group-instance-not-registered', () => {
  function withOrphan(launchedAt: string) {
    const w = world();
    w.raw.autoScalingGroups[0].DesiredCapacity = 2;
    w.raw.autoScalingGroups[0].Instances!.push({
      InstanceId: 'i-0aaaabbbbccccdddd',
      AvailabilityZone: 'us-east-1a',
      LifecycleState: 'InService',
      HealthStatus: 'Healthy',
      InstanceType: 'm5.xlarge',
    });
    w.add('scalingActivities', {
      ...scalingActivity('prod-general').at(launchedAt, launchedAt).build(),
      Description: 'Launching a new EC2 instance: i-0aaaabbbbccccdddd',
      StatusCode: 'Successful',
    });
    return w;
  }
  it('fires for an InService instance with no Node after 10 minutes', () => {
    const [f] = findingsOf(withOrphan('2026-01-05T11:30:00Z').raw, 'node-group-instance-not-registered');
    expect(f.message).toContain('i-0aaaabbbbccccdddd (30m ago)');
  });
  it('stays quiet during the first 10 minutes', () => {
    expect(findingsOf(withOrphan('2026-01-05T11:55:00Z').raw, 'node-group-instance-not-registered')).toEqual(
      [],
    );
  });
});

describe('cluster-scale-up-limit', () => {
  it('fires when ready nodes reach --max-nodes-total', () => {
    const w = world({ caArgs: [...DEFAULT_CA_ARGS, '--max-nodes-total=1'] }).add(
      'pods',
      pendingPod().build(),
    );
    const [f] = findingsOf(w.raw, 'cluster-scale-up-limit');
    expect(f.caReason).toBe('max total nodes in cluster reached');
  });
  it('fires with the pre-1.35 text when --cores-total is exhausted', () => {
    const w = world({ caArgs: [...DEFAULT_CA_ARGS, '--cores-total=0:6'] }).add('pods', pendingPod().build());
    expect(findingsOf(w.raw, 'cluster-scale-up-limit')[0].caReason).toBe('max cluster cpu limit reached');
  });
  it('stays quiet below the limits', () => {
    const w = world({ caArgs: [...DEFAULT_CA_ARGS, '--max-nodes-total=10'] }).add(
      'pods',
      pendingPod().build(),
    );
    expect(findingsOf(w.raw, 'cluster-scale-up-limit')).toEqual([]);
  });
});

describe('ca-deployment-not-found and ca-config-invalid', () => {
  it('fires when no CA Deployment exists', () => {
    expect(findingsOf(world({ withCa: false }).raw, 'ca-deployment-not-found')).toHaveLength(1);
    expect(findingsOf(world().raw, 'ca-deployment-not-found')).toEqual([]);
  });
  it('reports an unknown flag once, naming --ca-args when it came from there', () => {
    const fs = findingsOf(world().raw, 'ca-config-invalid', { caArgs: ['--no-such-flag=1'] });
    expect(fs).toHaveLength(1);
    expect(fs[0].message).toContain('Deployment kube-system/cluster-autoscaler and --ca-args');
    expect(fs[0].message).toContain('--no-such-flag');
  });
  it('stays quiet about a missing Deployment when --ca-args describes CA', () => {
    expect(findingsOf(world({ withCa: false }).raw, 'ca-deployment-not-found', { caArgs: ['--cloud-provider=aws'] })).toEqual([]);
  });
  it('fires for a --nodes spec CA cannot parse', () => {
    const w = world({ caArgs: ['--cloud-provider=aws', '--nodes=1:x:prod-general'] });
    expect(findingsOf(w.raw, 'ca-config-invalid')[0].message).toContain(
      'failed to set max size: x, expected integer',
    );
    expect(
      findingsOf(
        world({ caArgs: ['--cloud-provider=aws', '--nodes=1:5:prod-general'] }).raw,
        'ca-config-invalid',
      ),
    ).toEqual([]);
  });
});

describe('ca-status-stale', () => {
  it('fires when the status ConfigMap is older than 3 minutes', () => {
    const w = world().add(
      'configMaps',
      statusConfigMap(groupStatus('prod-general', 'NoActivity'), '2026-01-05 11:50:00.0 +0000 UTC'),
    );
    expect(findingsOf(w.raw, 'ca-status-stale')[0].message).toContain('10m');
  });
  it('stays quiet when it is fresh', () => {
    const w = world().add('configMaps', statusConfigMap(groupStatus('prod-general', 'NoActivity')));
    expect(findingsOf(w.raw, 'ca-status-stale')).toEqual([]);
  });
  it('is not evaluated, naming what could not be parsed, when the status is cut short', () => {
    const cm = statusConfigMap(groupStatus('prod-general', 'NoActivity'));
    const body = cm.data!.status;
    cm.data!.status = body.slice(0, body.indexOf('  scaleUp:'));
    const w = world().add('configMaps', cm);
    const { findings, skipped } = analyze(w.raw);
    expect(findings.filter((f) => f.checkId === 'ca-status-stale')).toEqual([]);
    const skip = skipped.find((x) => x.checkId === 'ca-status-stale');
    expect(skip?.reason).toBe('unreadable');
    expect(skip?.detail).toMatch(/could not be parsed \(status YAML lacks clusterWide\.scaleUp.*kubectl -n kube-system get configmap cluster-autoscaler-status -o json/);
  });
});

describe('ca-event-disagrees', () => {
  function event(message: string, reason = 'NotTriggerScaleUp') {
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'api-7f9c8d6b5-x2x7q.1870a1b2c3d4e5f6', namespace: 'web' },
      involvedObject: {
        kind: 'Pod',
        namespace: 'web',
        name: 'api-7f9c8d6b5-x2x7q',
        uid: pendingPod().build().metadata.uid,
      },
      reason,
      message,
      type: 'Normal',
      count: 3,
      firstTimestamp: '2026-01-05T11:40:00Z',
      lastTimestamp: '2026-01-05T11:58:00Z',
      source: { component: 'cluster-autoscaler' },
    };
  }
  it('warns when CA said no scale-up but a group fits now', () => {
    const w = world()
      .add('pods', pendingPod().build())
      .add('events', event("pod didn't trigger scale-up: 1 max node group size reached"));
    const [f] = findingsOf(w.raw, 'ca-event-disagrees');
    expect(f.severity).toBe('warning');
    expect(f.message).toContain('prod-general can host it now');
  });
  it('notes when the reason sets differ', () => {
    const w = world()
      .add('pods', pendingPod().withRequests({ cpu: '8' }).build())
      .add('events', event("pod didn't trigger scale-up: 1 max node group size reached"));
    expect(findingsOf(w.raw, 'ca-event-disagrees')[0].message).toContain('1 Insufficient cpu');
  });
  it('stays quiet when CA 1.33+ said "max total nodes in cluster reached" and the limit is reached', () => {
    const w = world({ caArgs: [...DEFAULT_CA_ARGS, '--max-nodes-total=1'] });
    w.add('pods', pendingPod().build()).add('events', event("pod didn't trigger scale-up: max total nodes in cluster reached"));
    expect(findingsOf(w.raw, 'ca-event-disagrees')).toEqual([]);
  });
  it('stays quiet when casdoctor could not build a template for lack of data (not a disagreement with CA)', () => {
    const z = zeroGroup('prod-batch');
    const w = world().add('autoScalingGroups', z.asg); // its launch template version is not in the snapshot
    w.add('pods', pendingPod().withRequests({ cpu: '8' }).build()).add('events', event("pod didn't trigger scale-up: 2 Insufficient cpu"));
    expect(findingsOf(w.raw, 'ca-event-disagrees')).toEqual([]);
  });
  it('stays quiet when CA said what casdoctor computes, in any order', () => {
    const w = world()
      .add('pods', pendingPod().withRequests({ cpu: '8' }).build())
      .add('events', event("pod didn't trigger scale-up: 1 Insufficient cpu"));
    expect(findingsOf(w.raw, 'ca-event-disagrees')).toEqual([]);
  });
});

// keep the builders honest: the world's node is what CA would template from
describe('the test world', () => {
  it('maps its node to its ASG and leaves the node full', () => {
    const w = world();
    expect(w.raw.autoScalingGroups[0].Instances?.[0].InstanceId).toBe(instanceIdOf(w.raw.nodes[0]));
    expect(filler(w.raw.nodes[0]).spec.nodeName).toBe('ip-10-0-1-10.ec2.internal');
    expect(NOW.toISOString()).toBe('2026-01-05T12:00:00.000Z');
    expect(caDeployment([]).spec?.template?.spec?.containers[0].image).toContain('v1.32.1');
    void node;
  });
});
