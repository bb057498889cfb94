#!/usr/bin/env node
// Generates examples/history: one afternoon (2026-11-20, 12:00–18:00 UTC) of a mixed EKS cluster, "shop-prod" in
// eu-west-1 — Cluster Autoscaler v1.32.1 on four ASGs beside Karpenter v1.14.1 with one NodePool — as a support bundle
// taken at 18:00 holds it: kubectl dumps (events reach back one hour, their TTL), both autoscalers' logs, the ASGs'
// scaling activities and CloudTrail's lookup-events. What happened:
//   12:30 Karpenter provisions NodeClaim default-x5fz8 for two web pods
//   13:20 a person (SSO, console) terminates i-0a9b8c7d6e5f40312 (ip-10-0-13-77) in eks-general-a; the ASG replaces it
//   14:40 EC2 reclaims the spot instance i-0b7c6d5e4f3a29180 (ip-10-0-22-48) of eks-spot-a; the ASG replaces it
//   15:10 Karpenter consolidates ip-10-0-40-11 (m5.2xlarge on-demand) with a replacement m5.large spot
//   16:02 CA marks ip-10-0-12-201 unneeded; 16:12 scales it down (underutilized), TerminateInstanceInAutoScalingGroup
//   17:10 ml/trainer-0 (a GPU pod) is Pending; CA scales up eks-gpu-a, ICE, backoff, falls back to eks-gpu-b; the pod
//         runs at 17:17:05, seven minutes after it was created
// Deterministic: ids derive from labels (scripts/lib/demo-kit.mjs), never from the clock. Usage: node scripts/gen-history-demo.mjs [dir]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { event, hexOf, intOf, list, node, owner, pod, uuid, writeJson } from './lib/demo-kit.mjs';

const DIR = process.argv[2] ?? 'examples/history';
const DAY = '2026-11-20';
const T = (hms) => `${DAY}T${hms}Z`;
const NOW = T('18:00:00');
const ACCOUNT = '111122223333';
const REGION = 'eu-west-1';
const dns = (ip) => `ip-${ip.replaceAll('.', '-')}.${REGION}.compute.internal`;

// ------------------------------------------------------------------------------------------------ the cast
const NODES = {
  // eks-general-a (CA, on-demand m5.xlarge)
  gen1: { ip: '10.0.12.34', id: 'i-0e1f2a3b4c5d60718', group: 'eks-general-a', created: T('08:14:09'), type: 'm5.xlarge', zone: 'eu-west-1a' },
  scaledDown: { ip: '10.0.12.201', id: 'i-0c1d2e3f4a5b60718', group: 'eks-general-a', created: T('11:02:44'), type: 'm5.xlarge', zone: 'eu-west-1a', gone: T('16:12:55') },
  person: { ip: '10.0.13.77', id: 'i-0a9b8c7d6e5f40312', group: 'eks-general-a', created: T('09:40:17'), type: 'm5.xlarge', zone: 'eu-west-1a', gone: T('13:21:40') },
  personRepl: { ip: '10.0.13.150', id: 'i-0e5d4c3b2a1908f7e', group: 'eks-general-a', created: T('13:23:02'), type: 'm5.xlarge', zone: 'eu-west-1a' },
  // eks-spot-a (CA, spot m5.large)
  spot1: { ip: '10.0.22.48', id: 'i-0b7c6d5e4f3a29180', group: 'eks-spot-a', created: T('07:55:31'), type: 'm5.large', zone: 'eu-west-1a', gone: T('14:42:30') },
  spotRepl: { ip: '10.0.22.91', id: 'i-0d6e5f4a3b2c19087', group: 'eks-spot-a', created: T('14:44:11'), type: 'm5a.large', zone: 'eu-west-1a' },
  // eks-gpu-b (CA, g5.xlarge in eu-west-1b): the fallback
  gpu: { ip: '10.0.52.14', id: 'i-0a1b2c3d4e5f60789', group: 'eks-gpu-b', created: T('17:14:58'), type: 'g5.xlarge', zone: 'eu-west-1b' },
  // Karpenter, NodePool default
  kWeb: { ip: '10.0.41.23', id: 'i-0f9e8d7c6b5a43210', pool: 'default', claim: 'default-x5fz8', created: T('12:31:21'), type: 'c6i.xlarge', zone: 'eu-west-1a', ct: 'spot' },
  kOld: { ip: '10.0.40.11', id: 'i-0c2b3a4f5e6d70819', pool: 'default', claim: 'default-7x2kq', created: T('06:02:50'), type: 'm5.2xlarge', zone: 'eu-west-1a', ct: 'on-demand', gone: T('15:11:42') },
  kNew: { ip: '10.0.40.87', id: 'i-0f1e2d3c4b5a69788', pool: 'default', claim: 'default-p9w4n', created: T('15:10:58'), type: 'm5.large', zone: 'eu-west-1a', ct: 'spot' },
};
const nameOf = (n) => dns(n.ip);

function k8sNode(n, now) {
  const mem = { 'm5.xlarge': '16005428Ki', 'm5.large': '7931440Ki', 'm5a.large': '7931440Ki', 'g5.xlarge': '16106976Ki', 'c6i.xlarge': '7931440Ki', 'm5.2xlarge': '32408668Ki' }[n.type];
  const cpu = { 'm5.xlarge': '4', 'm5.large': '2', 'm5a.large': '2', 'g5.xlarge': '4', 'c6i.xlarge': '4', 'm5.2xlarge': '8' }[n.type];
  const labels = {
    'node.kubernetes.io/instance-type': n.type,
    'topology.kubernetes.io/region': REGION,
    'topology.kubernetes.io/zone': n.zone,
    ...(n.group ? { 'eks.amazonaws.com/nodegroup-image': 'ami-0f5c3e1d2b4a69788', 'alpha.eksctl.io/nodegroup-name': n.group.replace(/^eks-/, '') } : {}),
    ...(n.pool ? { 'karpenter.sh/nodepool': n.pool, 'karpenter.sh/capacity-type': n.ct, 'karpenter.sh/initialized': 'true', 'karpenter.sh/registered': 'true' } : {}),
    ...(n.type.startsWith('g5') ? { 'nvidia.com/gpu.present': 'true' } : {}),
  };
  return node({
    name: nameOf(n), created: n.created, labels, providerID: `aws:///${n.zone}/${n.id}`, cpu, memoryKi: mem,
    allocCpu: `${Number(cpu) * 1000 - 70}m`, allocMemoryKi: mem, ip: n.ip, kubelet: 'v1.31.2-eks-94953ac', now,
    ...(n.type.startsWith('g5') ? { extraCapacity: { 'nvidia.com/gpu': '1' } } : {}),
  });
}

// ------------------------------------------------------------------------------------------------ Kubernetes
const liveAt18 = ['gen1', 'personRepl', 'spotRepl', 'gpu', 'kWeb', 'kNew'].map((k) => NODES[k]);
const liveAt12 = ['gen1', 'scaledDown', 'person', 'spot1', 'kOld'].map((k) => NODES[k]);
writeJson(DIR, 'nodes.json', list(liveAt18.map((n) => k8sNode(n, NOW))));
writeJson(DIR, 'nodes-at-1200.json', list(liveAt12.map((n) => k8sNode(n, T('12:00:00')))));

function nodeClaim(n, { launched, registered, initialized, replacementFor }) {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      annotations: { 'karpenter.k8s.aws/ec2nodeclass-hash': '8302750391844176092', 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4', 'karpenter.sh/nodepool-hash': '4137290466523510312', 'karpenter.sh/nodepool-hash-version': 'v3' },
      creationTimestamp: n.claimCreated,
      finalizers: ['karpenter.sh/termination'],
      generateName: 'default-',
      generation: 1,
      labels: { 'karpenter.k8s.aws/ec2nodeclass': 'default', 'karpenter.sh/capacity-type': n.ct, 'karpenter.sh/nodepool': n.pool, 'node.kubernetes.io/instance-type': n.type, 'topology.kubernetes.io/zone': n.zone, ...(replacementFor ? {} : {}) },
      name: n.claim,
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', blockOwnerDeletion: true, kind: 'NodePool', name: n.pool, uid: uuid('nodepool:default') }],
      resourceVersion: String(7_100_000 + intOf(n.claim, 90_000)),
      uid: uuid(`nodeclaim:${n.claim}`),
    },
    spec: {
      expireAfter: '720h',
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [
        { key: 'karpenter.sh/nodepool', operator: 'In', values: [n.pool] },
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [n.type] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: [n.ct] },
      ],
      resources: { requests: { cpu: '1100m', pods: '5' } },
    },
    status: {
      conditions: [
        { lastTransitionTime: launched, message: '', observedGeneration: 1, reason: 'Launched', status: 'True', type: 'Launched' },
        { lastTransitionTime: registered, message: '', observedGeneration: 1, reason: 'Registered', status: 'True', type: 'Registered' },
        { lastTransitionTime: initialized, message: '', observedGeneration: 1, reason: 'Initialized', status: 'True', type: 'Initialized' },
        { lastTransitionTime: initialized, message: '', observedGeneration: 1, reason: 'Ready', status: 'True', type: 'Ready' },
      ],
      imageID: 'ami-0a4c8e2f1b3d59687',
      nodeName: nameOf(n),
      providerID: `aws:///${n.zone}/${n.id}`,
    },
  };
}
NODES.kWeb.claimCreated = T('12:30:44');
NODES.kNew.claimCreated = T('15:10:02');
writeJson(DIR, 'nodeclaims.json', list([
  nodeClaim(NODES.kWeb, { launched: T('12:30:47'), registered: T('12:31:21'), initialized: T('12:31:49') }),
  nodeClaim(NODES.kNew, { launched: T('15:10:05'), registered: T('15:10:58'), initialized: T('15:11:20'), replacementFor: NODES.kOld }),
]));

const gpuPod = pod({
  ns: 'ml', name: 'trainer-0', labels: { app: 'trainer', 'apps.kubernetes.io/pod-index': '0' }, ownerRef: owner('StatefulSet', 'trainer'), created: T('17:10:00'),
  containers: [{ name: 'trainer', image: '111122223333.dkr.ecr.eu-west-1.amazonaws.com/ml/trainer:2026.11.3', resources: { limits: { 'nvidia.com/gpu': '1' }, requests: { cpu: '3', memory: '12Gi', 'nvidia.com/gpu': '1' } } }],
  nodeName: nameOf(NODES.gpu), nodeSelector: { 'nvidia.com/gpu.present': 'true' }, startedAt: T('17:17:05'),
  tolerations: [{ effect: 'NoSchedule', key: 'nvidia.com/gpu', operator: 'Exists' }],
});
// as the kubelet reports it: scheduled 17:15:44, the image pulled and the container Ready at 17:17:05
for (const c of gpuPod.status.conditions) c.lastTransitionTime = c.type === 'PodScheduled' ? T('17:15:44') : c.type === 'Initialized' ? T('17:15:46') : T('17:17:05');
gpuPod.status.startTime = T('17:15:44');
gpuPod.status.hostIP = NODES.gpu.ip;
gpuPod.status.podIP = '10.0.52.201';
const webPods = ['web-6c9f7d8b5-4kq2z', 'web-6c9f7d8b5-m7xw9'].map((name) =>
  pod({ ns: 'shop', name, generateName: 'web-6c9f7d8b5-', labels: { app: 'web', 'pod-template-hash': '6c9f7d8b5' }, ownerRef: owner('ReplicaSet', 'web-6c9f7d8b5'), created: T('12:30:40'), containers: [{ name: 'web', image: 'public.ecr.aws/nginx/nginx:1.27', resources: { requests: { cpu: '500m', memory: '512Mi' } } }], nodeName: nameOf(NODES.kWeb) }),
);
writeJson(DIR, 'pods.json', list([gpuPod, ...webPods]));

// events: only the last hour is left (--event-ttl=1h)
const nodeRef = (n) => ({ kind: 'Node', name: nameOf(n), uid: uuid(`node:${nameOf(n)}`) });
const gpuRef = { apiVersion: 'v1', kind: 'Pod', name: 'trainer-0', namespace: 'ml', resourceVersion: gpuPod.metadata.resourceVersion, uid: gpuPod.metadata.uid };
const cmRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cluster-autoscaler-status', namespace: 'kube-system', uid: uuid('cm:cluster-autoscaler-status') };
const FAILED = '0/6 nodes are available: 6 Insufficient nvidia.com/gpu. preemption: 0/6 nodes are available: 6 No preemption victims found for incoming pod.';
writeJson(DIR, 'events.json', list([
  event({ ns: 'ml', involved: gpuRef, reason: 'FailedScheduling', type: 'Warning', message: FAILED, source: 'default-scheduler', first: T('17:10:01'), last: T('17:14:59'), count: 9 }),
  event({ ns: 'ml', involved: gpuRef, reason: 'TriggeredScaleUp', message: 'pod triggered scale-up: [{eks-gpu-a 0->1 (max: 4)}]', source: 'cluster-autoscaler', first: T('17:10:13'), last: T('17:10:13'), label: 'up-a' }),
  event({ ns: 'ml', involved: gpuRef, reason: 'NotTriggerScaleUp', message: "pod didn't trigger scale-up: 3 node(s) didn't match Pod's node affinity/selector, 1 in backoff after failed scale-up", source: 'cluster-autoscaler', first: T('17:11:32'), last: T('17:11:32') }),
  event({ ns: 'ml', involved: gpuRef, reason: 'TriggeredScaleUp', message: 'pod triggered scale-up: [{eks-gpu-b 0->1 (max: 4)}]', source: 'cluster-autoscaler', first: T('17:11:52'), last: T('17:11:52'), label: 'up-b' }),
  event({ ns: 'ml', involved: gpuRef, reason: 'Scheduled', message: `Successfully assigned ml/trainer-0 to ${nameOf(NODES.gpu)}`, source: 'default-scheduler', first: T('17:15:44'), last: T('17:15:44') }),
  event({ ns: 'ml', involved: gpuRef, reason: 'Pulling', message: 'Pulling image "111122223333.dkr.ecr.eu-west-1.amazonaws.com/ml/trainer:2026.11.3"', source: 'kubelet', first: T('17:15:47'), last: T('17:15:47') }),
  event({ ns: 'ml', involved: gpuRef, reason: 'Pulled', message: 'Successfully pulled image "111122223333.dkr.ecr.eu-west-1.amazonaws.com/ml/trainer:2026.11.3" in 1m16.402s (1m16.402s including waiting). Image size: 9315720310 bytes.', source: 'kubelet', first: T('17:17:03'), last: T('17:17:03') }),
  event({ ns: 'ml', involved: gpuRef, reason: 'Started', message: 'Started container trainer', source: 'kubelet', first: T('17:17:04'), last: T('17:17:04') }),
  event({ ns: 'kube-system', involved: cmRef, reason: 'ScaledUpGroup', message: 'Scale-up: setting group eks-gpu-a size to 1 instead of 0 (max: 4)', source: 'cluster-autoscaler', first: T('17:10:13'), last: T('17:10:13'), label: 'sug-a' }),
  event({ ns: 'kube-system', involved: cmRef, reason: 'ScaledUpGroup', message: 'Scale-up: setting group eks-gpu-b size to 1 instead of 0 (max: 4)', source: 'cluster-autoscaler', first: T('17:11:51'), last: T('17:11:51'), label: 'sug-b' }),
  event({ ns: 'default', involved: nodeRef(NODES.gpu), reason: 'RegisteredNode', message: `Node ${nameOf(NODES.gpu)} event: Registered Node ${nameOf(NODES.gpu)} in Controller`, source: 'node-controller', first: T('17:15:02'), last: T('17:15:02') }),
  event({ ns: 'default', involved: nodeRef(NODES.gpu), reason: 'NodeReady', message: `Node ${nameOf(NODES.gpu)} status is now: NodeReady`, source: 'kubelet', first: T('17:15:42'), last: T('17:15:42') }),
]));

// the CA Deployment (its flags and version)
const caDeployment = {
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { creationTimestamp: '2026-09-02T10:11:12Z', generation: 4, labels: { app: 'cluster-autoscaler' }, name: 'cluster-autoscaler', namespace: 'kube-system', resourceVersion: '7004411', uid: uuid('deploy:cluster-autoscaler') },
  spec: {
    replicas: 1, selector: { matchLabels: { app: 'cluster-autoscaler' } },
    template: {
      metadata: { labels: { app: 'cluster-autoscaler' } },
      spec: {
        containers: [{
          command: ['./cluster-autoscaler', '--v=4', '--stderrthreshold=info', '--cloud-provider=aws', '--skip-nodes-with-local-storage=false', '--expander=least-waste', '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/shop-prod', '--balance-similar-node-groups', '--scale-down-unneeded-time=10m'],
          image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1', imagePullPolicy: 'IfNotPresent', name: 'cluster-autoscaler',
          resources: { limits: { memory: '600Mi' }, requests: { cpu: '100m', memory: '600Mi' } },
        }],
        serviceAccountName: 'cluster-autoscaler',
      },
    },
  },
  status: { availableReplicas: 1, readyReplicas: 1, replicas: 1, updatedReplicas: 1 },
};
writeJson(DIR, 'deployments.json', list([caDeployment]));

// ------------------------------------------------------------------------------------------------ AWS
const asgArn = (g) => `arn:aws:autoscaling:${REGION}:${ACCOUNT}:autoScalingGroup:${uuid(`asg:${g}`)}:autoScalingGroupName/${g}`;
const inst = (n) => ({ AvailabilityZone: n.zone, HealthStatus: 'Healthy', InstanceId: n.id, InstanceType: n.type, LaunchTemplate: { LaunchTemplateId: `lt-${hexOf(`lt:${n.group}`, 17)}`, LaunchTemplateName: `${n.group}-lt`, Version: '3' }, LifecycleState: 'InService', ProtectedFromScaleIn: false });
const asg = (g, { min, max, desired, zones, type, instances }) => ({
  AutoScalingGroupARN: asgArn(g), AutoScalingGroupName: g, AvailabilityZones: zones, CapacityRebalance: false, CreatedTime: '2026-09-02T10:20:31.118Z', DefaultCooldown: 300, DesiredCapacity: desired,
  HealthCheckGracePeriod: 15, HealthCheckType: 'EC2', Instances: instances.map(inst), LaunchTemplate: { LaunchTemplateId: `lt-${hexOf(`lt:${g}`, 17)}`, LaunchTemplateName: `${g}-lt`, Version: '3' },
  MaxSize: max, MinSize: min, NewInstancesProtectedFromScaleIn: false, ServiceLinkedRoleARN: `arn:aws:iam::${ACCOUNT}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling`,
  Tags: [
    { Key: 'k8s.io/cluster-autoscaler/enabled', PropagateAtLaunch: true, ResourceId: g, ResourceType: 'auto-scaling-group', Value: 'true' },
    { Key: 'k8s.io/cluster-autoscaler/shop-prod', PropagateAtLaunch: true, ResourceId: g, ResourceType: 'auto-scaling-group', Value: 'owned' },
    { Key: 'kubernetes.io/cluster/shop-prod', PropagateAtLaunch: true, ResourceId: g, ResourceType: 'auto-scaling-group', Value: 'owned' },
  ],
  TerminationPolicies: ['AllocationStrategy', 'OldestLaunchTemplate', 'OldestInstance'], VPCZoneIdentifier: zones.map((z) => `subnet-${hexOf(`subnet:${z}`, 17)}`).join(','),
  ...(type ? {} : {}),
});
writeJson(DIR, 'asgs.json', {
  AutoScalingGroups: [
    asg('eks-general-a', { min: 1, max: 10, desired: 2, zones: ['eu-west-1a'], instances: [NODES.gen1, NODES.personRepl] }),
    asg('eks-spot-a', { min: 1, max: 10, desired: 1, zones: ['eu-west-1a'], instances: [NODES.spotRepl] }),
    asg('eks-gpu-a', { min: 0, max: 4, desired: 0, zones: ['eu-west-1a'], instances: [] }),
    asg('eks-gpu-b', { min: 0, max: 4, desired: 1, zones: ['eu-west-1b'], instances: [NODES.gpu] }),
  ],
});

const details = (z) => JSON.stringify({ 'Subnet ID': `subnet-${hexOf(`subnet:${z}`, 17)}`, 'Availability Zone': z });
const activity = (g, label, { desc, cause, start, end, status = 'Successful', message, zone }) => ({
  ActivityId: uuid(`act:${label}`), AutoScalingGroupARN: asgArn(g), AutoScalingGroupName: g, Cause: cause, Description: desc, Details: details(zone),
  EndTime: end, Progress: 100, StartTime: start, StatusCode: status, ...(message ? { StatusMessage: message } : {}),
});
const ICE = 'We currently do not have sufficient g5.xlarge capacity in the Availability Zone you requested (eu-west-1a). Our system will be working on provisioning additional capacity. You can currently get g5.xlarge capacity by not specifying an Availability Zone in your request or choosing eu-west-1b, eu-west-1c. Launching EC2 instance failed.';
writeJson(DIR, 'scaling-activities.json', {
  Activities: [
    // newest first, as describe-scaling-activities prints them
    activity('eks-gpu-b', 'gpu-b-launch', { desc: `Launching a new EC2 instance: ${NODES.gpu.id}`, cause: 'At 2026-11-20T17:11:51Z a user request explicitly set group desired capacity changing the desired capacity from 0 to 1.  At 2026-11-20T17:12:01Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 1.', start: '2026-11-20T17:12:03.614Z', end: '2026-11-20T17:12:36Z', zone: 'eu-west-1b' }),
    activity('eks-gpu-a', 'gpu-a-ice', { desc: `Launching a new EC2 instance.  Status Reason: ${ICE}`, cause: 'At 2026-11-20T17:10:13Z a user request explicitly set group desired capacity changing the desired capacity from 0 to 1.  At 2026-11-20T17:10:19Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 1.', start: '2026-11-20T17:10:21.482Z', end: '2026-11-20T17:10:21Z', status: 'Failed', message: ICE, zone: 'eu-west-1a' }),
    activity('eks-general-a', 'sd-terminate', { desc: `Terminating EC2 instance: ${NODES.scaledDown.id}`, cause: `At 2026-11-20T16:12:51Z instance ${NODES.scaledDown.id} was taken out of service in response to a user request, shrinking the capacity from 3 to 2.`, start: '2026-11-20T16:12:51.903Z', end: '2026-11-20T16:13:54Z', zone: 'eu-west-1a' }),
    activity('eks-spot-a', 'spot-replace', { desc: `Launching a new EC2 instance: ${NODES.spotRepl.id}`, cause: 'At 2026-11-20T14:42:17Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 0 to 1.', start: '2026-11-20T14:42:19.225Z', end: '2026-11-20T14:42:52Z', zone: 'eu-west-1a' }),
    activity('eks-spot-a', 'spot-terminate', { desc: `Terminating EC2 instance: ${NODES.spot1.id}`, cause: 'At 2026-11-20T14:42:07Z an instance was taken out of service in response to an EC2 health check indicating it has been terminated or stopped.', start: '2026-11-20T14:42:07.771Z', end: '2026-11-20T14:42:30Z', zone: 'eu-west-1a' }),
    activity('eks-general-a', 'person-replace', { desc: `Launching a new EC2 instance: ${NODES.personRepl.id}`, cause: 'At 2026-11-20T13:21:48Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 2 to 3.', start: '2026-11-20T13:21:50.318Z', end: '2026-11-20T13:22:23Z', zone: 'eu-west-1a' }),
    activity('eks-general-a', 'person-terminate', { desc: `Terminating EC2 instance: ${NODES.person.id}`, cause: 'At 2026-11-20T13:21:38Z an instance was taken out of service in response to an EC2 health check indicating it has been terminated or stopped.', start: '2026-11-20T13:21:38.406Z', end: '2026-11-20T13:21:40Z', zone: 'eu-west-1a' }),
  ],
});

// CloudTrail: `aws cloudtrail lookup-events --output json`, newest first; CloudTrailEvent is a JSON string
const KARPENTER_ROLE = 'KarpenterController-shop-prod';
const CA_ROLE = 'shop-prod-cluster-autoscaler';
const assumed = (role, session, agent) => ({
  userIdentity: {
    type: 'AssumedRole', principalId: `AROA${hexOf(`role:${role}`, 17).toUpperCase()}:${session}`, arn: `arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${session}`, accountId: ACCOUNT, accessKeyId: `ASIA${hexOf(`key:${role}`, 16).toUpperCase()}`,
    sessionContext: { sessionIssuer: { type: 'Role', principalId: `AROA${hexOf(`role:${role}`, 17).toUpperCase()}`, arn: `arn:aws:iam::${ACCOUNT}:role/${role}`, accountId: ACCOUNT, userName: role }, attributes: { creationDate: '2026-11-20T11:58:02Z', mfaAuthenticated: 'false' } },
  },
  userAgent: agent,
});
const asgService = () => ({ userIdentity: { type: 'AWSService', invokedBy: 'autoscaling.amazonaws.com' }, userAgent: 'autoscaling.amazonaws.com', sourceIPAddress: 'autoscaling.amazonaws.com' });
function trail(label, name, source, time, who, requestParameters, responseElements, extra = {}) {
  const id = uuid(`ct:${label}`);
  const rec = { eventVersion: '1.10', ...who, eventTime: time, eventSource: source, eventName: name, awsRegion: REGION, sourceIPAddress: who.sourceIPAddress ?? '10.0.8.17', userAgent: who.userAgent, requestParameters, responseElements, requestID: uuid(`req:${label}`), eventID: id, readOnly: false, eventType: 'AwsApiCall', managementEvent: true, recipientAccountId: ACCOUNT, eventCategory: 'Management', ...extra };
  delete rec.sourceIPAddress;
  rec.sourceIPAddress = who.sourceIPAddress ?? '10.0.8.17';
  const ids = JSON.stringify(requestParameters ?? {}).match(/i-[0-9a-f]{17}/g) ?? JSON.stringify(responseElements ?? {}).match(/i-[0-9a-f]{17}/g) ?? [];
  const user = who.userIdentity.arn?.split('/').pop() ?? who.userIdentity.invokedBy ?? '';
  return {
    AccessKeyId: who.userIdentity.accessKeyId ?? '', CloudTrailEvent: JSON.stringify(rec), EventId: id, EventName: name, EventSource: source, EventTime: time.replace('Z', '+00:00'), ReadOnly: 'false',
    Resources: [...new Set(ids)].map((i) => ({ ResourceType: 'AWS::EC2::Instance', ResourceName: i })), Username: user,
  };
}
const terminate = (ids) => ({ instancesSet: { items: ids.map((instanceId) => ({ instanceId })) } });
const terminated = (ids) => ({ requestId: uuid(`r:${ids[0]}`), instancesSet: { items: ids.map((instanceId) => ({ instanceId, currentState: { code: 32, name: 'shutting-down' }, previousState: { code: 16, name: 'running' } })) } });
const fleet = (n) => ({ CreateFleetResponse: { fleetId: `fleet-${uuid(`fleet:${n.claim}`)}`, errorSet: '', fleetInstanceSet: { item: { instanceIds: { item: n.id }, instanceType: n.type, launchTemplateAndOverrides: { overrides: { AvailabilityZone: n.zone, InstanceType: n.type } }, lifecycle: n.ct === 'spot' ? 'spot' : 'on-demand' } }, requestId: uuid(`fr:${n.claim}`), xmlns: 'http://ec2.amazonaws.com/doc/2016-11-15/' } });
const fleetReq = (n) => ({ CreateFleetRequest: { Type: 'instant', TargetCapacitySpecification: { DefaultTargetCapacityType: n.ct, TotalTargetCapacity: 1 }, TagSpecification: { item: [{ ResourceType: 'instance', Tag: [{ Key: 'karpenter.sh/nodepool', Value: n.pool }, { Key: 'karpenter.sh/nodeclaim', Value: n.claim }, { Key: 'eks:eks-cluster-name', Value: 'shop-prod' }] }] } } });
const KARP_AGENT = 'aws-sdk-go-v2/1.36.3 ua/2.1 os/linux lang/go#1.24.4 md/GOOS#linux md/GOARCH#amd64 api/ec2#1.224.0 karpenter.sh-v1.14.1';
const CA_AGENT = 'aws-sdk-go/1.55.5 (go1.23.4; linux; amd64) cluster-autoscaler/v1.32.1';
const runBy = (n) => trail(`run:${n.id}`, 'RunInstances', 'ec2.amazonaws.com', `${n.launch}`, asgService(), { instancesSet: { items: [{ minCount: 1, maxCount: 1 }] }, launchTemplate: { launchTemplateId: `lt-${hexOf(`lt:${n.group}`, 17)}`, version: '3' } }, { instancesSet: { items: [{ instanceId: n.id, instanceType: n.type }] } });
NODES.personRepl.launch = T('13:21:50');
NODES.spotRepl.launch = T('14:42:19');
NODES.gpu.launch = T('17:12:03');
const EVENTS = [
  trail('ca-set-gpu-b', 'SetDesiredCapacity', 'autoscaling.amazonaws.com', T('17:11:51'), assumed(CA_ROLE, '1763654282143937210', CA_AGENT), { autoScalingGroupName: 'eks-gpu-b', desiredCapacity: 1, honorCooldown: false }, null),
  runBy(NODES.gpu),
  trail('ca-set-gpu-a', 'SetDesiredCapacity', 'autoscaling.amazonaws.com', T('17:10:13'), assumed(CA_ROLE, '1763654282143937210', CA_AGENT), { autoScalingGroupName: 'eks-gpu-a', desiredCapacity: 1, honorCooldown: false }, null),
  trail('asg-ice', 'RunInstances', 'ec2.amazonaws.com', T('17:10:21'), asgService(), { instancesSet: { items: [{ minCount: 1, maxCount: 1 }] } }, null, { errorCode: 'Server.InsufficientInstanceCapacity', errorMessage: ICE.replace(' Launching EC2 instance failed.', '') }),
  trail('asg-term-sd', 'TerminateInstances', 'ec2.amazonaws.com', T('16:12:52'), asgService(), terminate([NODES.scaledDown.id]), terminated([NODES.scaledDown.id])),
  trail('ca-term-sd', 'TerminateInstanceInAutoScalingGroup', 'autoscaling.amazonaws.com', T('16:12:51'), assumed(CA_ROLE, '1763654282143937210', CA_AGENT), { instanceId: NODES.scaledDown.id, shouldDecrementDesiredCapacity: true }, { activity: { activityId: uuid('act:sd-terminate'), autoScalingGroupName: 'eks-general-a' } }),
  trail('k-term-old', 'TerminateInstances', 'ec2.amazonaws.com', T('15:11:40'), assumed(KARPENTER_ROLE, '1763641086339751402', KARP_AGENT), terminate([NODES.kOld.id]), terminated([NODES.kOld.id])),
  trail('k-fleet-new', 'CreateFleet', 'ec2.amazonaws.com', T('15:10:04'), assumed(KARPENTER_ROLE, '1763641086339751402', KARP_AGENT), fleetReq(NODES.kNew), fleet(NODES.kNew)),
  runBy(NODES.spotRepl),
  {
    AccessKeyId: '', CloudTrailEvent: JSON.stringify({ eventVersion: '1.10', userIdentity: { accountId: ACCOUNT, invokedBy: 'ec2.amazonaws.com' }, eventTime: T('14:40:05'), eventSource: 'ec2.amazonaws.com', eventName: 'BidEvictedEvent', awsRegion: REGION, sourceIPAddress: 'ec2.amazonaws.com', userAgent: 'ec2.amazonaws.com', requestParameters: null, responseElements: null, eventID: uuid('ct:bid'), readOnly: false, eventType: 'AwsServiceEvent', managementEvent: true, recipientAccountId: ACCOUNT, serviceEventDetails: { instanceIdSet: [NODES.spot1.id] }, eventCategory: 'Management' }),
    EventId: uuid('ct:bid'), EventName: 'BidEvictedEvent', EventSource: 'ec2.amazonaws.com', EventTime: T('14:40:05').replace('Z', '+00:00'), ReadOnly: 'false', Resources: [{ ResourceType: 'AWS::EC2::Instance', ResourceName: NODES.spot1.id }], Username: 'ec2.amazonaws.com',
  },
  runBy(NODES.personRepl),
  trail('person-term', 'TerminateInstances', 'ec2.amazonaws.com', T('13:20:41'), {
    userIdentity: {
      type: 'AssumedRole', principalId: 'AROA3X7QKZ5EXAMPLE4MN:jane.doe@example.com', arn: `arn:aws:sts::${ACCOUNT}:assumed-role/AWSReservedSSO_AdministratorAccess_5f2c1e0a9b8d7c6e/jane.doe@example.com`, accountId: ACCOUNT, accessKeyId: 'ASIA3X7QKZ5EXAMPLE7QA',
      sessionContext: { sessionIssuer: { type: 'Role', principalId: 'AROA3X7QKZ5EXAMPLE4MN', arn: `arn:aws:iam::${ACCOUNT}:role/aws-reserved/sso.amazonaws.com/${REGION}/AWSReservedSSO_AdministratorAccess_5f2c1e0a9b8d7c6e`, accountId: ACCOUNT, userName: 'AWSReservedSSO_AdministratorAccess_5f2c1e0a9b8d7c6e' }, attributes: { creationDate: '2026-11-20T13:02:11Z', mfaAuthenticated: 'false' } },
    },
    userAgent: 'AWS Internal', sourceIPAddress: '203.0.113.45',
  }, terminate([NODES.person.id]), terminated([NODES.person.id]), { sessionCredentialFromConsole: 'true' }),
  trail('k-fleet-web', 'CreateFleet', 'ec2.amazonaws.com', T('12:30:46'), assumed(KARPENTER_ROLE, '1763641086339751402', KARP_AGENT), fleetReq(NODES.kWeb), fleet(NODES.kWeb)),
];
writeJson(DIR, 'cloudtrail-lookup-events.json', { Events: EVENTS });

// ------------------------------------------------------------------------------------------------ logs
/** klog header: Lmmdd hh:mm:ss.uuuuuu threadid file:line] */
const klog = (level, iso, file, msg, label) => {
  const d = new Date(iso);
  const p2 = (n) => String(n).padStart(2, '0');
  const us = String(intOf(`us:${label ?? msg}:${iso}`, 1_000_000)).padStart(6, '0');
  return `${level}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${us}       1 ${file}] ${msg}`;
};
const ca = [];
const loopStart = Date.parse(T('12:00:03'));
const loopEnd = Date.parse(T('17:59:55'));
const caEvents = new Map();
const at = (hms, line) => {
  const t = Date.parse(T(hms));
  if (!caEvents.has(t)) caEvents.set(t, []);
  caEvents.get(t).push(line);
};
const SD = nameOf(NODES.scaledDown);
// ip-10-0-12-201 unneeded from 16:02:10, removed at 16:12:20 (--scale-down-unneeded-time=10m)
for (let t = Date.parse(T('16:02:13')); t <= Date.parse(T('16:12:13')); t += 10_000) {
  const iso = new Date(t).toISOString();
  const secs = Math.round((t - Date.parse(T('16:02:13'))) / 1000);
  const dur = secs >= 60 ? `${Math.floor(secs / 60)}m${secs % 60}s` : `${secs}s`;
  (caEvents.get(t) ?? caEvents.set(t, []).get(t)).push(klog('I', iso, 'nodes.go:212', `${SD} was unneeded for ${dur}`));
}
at('16:12:23', klog('I', T('16:12:23'), 'actuator.go:269', `Scale-down: removing node ${SD}, utilization: {0.21 0.34 0 memory 0.34}, pods to reschedule: shop/cart-5b8d6c7f9-qx2lp,shop/search-7f6d5c4b3-z8wkn`));
at('16:12:23', klog('I', T('16:12:23'), 'actuator.go:319', `Evicting pod shop/cart-5b8d6c7f9-qx2lp`));
// ml/trainer-0: eks-gpu-a, ICE, backoff, eks-gpu-b
at('17:10:13', klog('I', T('17:10:13'), 'orchestrator.go:101', 'Pod ml/trainer-0 is unschedulable'));
at('17:10:13', klog('I', T('17:10:13'), 'orchestrator.go:1090', 'Best option to resize: eks-gpu-a'));
at('17:10:13', klog('I', T('17:10:13'), 'orchestrator.go:1094', 'Estimated 1 nodes needed in eks-gpu-a'));
at('17:10:13', klog('I', T('17:10:13'), 'orchestrator.go:177', 'Final scale-up plan: [{eks-gpu-a 0->1 (max: 4)}]'));
at('17:10:13', klog('I', T('17:10:13'), 'executor.go:142', 'Scale-up: setting group eks-gpu-a size to 1'));
at('17:10:13', klog('I', T('17:10:13'), 'auto_scaling_groups.go:265', 'Setting asg eks-gpu-a size to 1'));
for (let t = Date.parse(T('17:10:23')); t <= Date.parse(T('17:11:23')); t += 10_000) (caEvents.get(t) ?? caEvents.set(t, []).get(t)).push(klog('I', new Date(t).toISOString(), 'orchestrator.go:101', 'Pod ml/trainer-0 is unschedulable'));
at('17:11:32', klog('W', T('17:11:32'), 'auto_scaling_groups.go:555', `ASG eks-gpu-a scaling failed with description: Launching a new EC2 instance.  Status Reason: ${ICE}`));
at('17:11:32', klog('W', T('17:11:32'), 'clusterstate.go:404', 'Disabling scale-up for node group eks-gpu-a until 2026-11-20 17:16:32.417355 +0000 UTC m=+5931.204114; errorClass=OutOfResource; errorCode=placeholder-cannot-be-fulfilled'));
at('17:11:51', klog('I', T('17:11:51'), 'orchestrator.go:101', 'Pod ml/trainer-0 is unschedulable'));
at('17:11:51', klog('W', T('17:11:51'), 'orchestrator.go:599', 'Node group eks-gpu-a is not ready for scaleup - backoff with status: {true {OutOfResource placeholder-cannot-be-fulfilled ASG eks-gpu-a scaling failed}}'));
at('17:11:51', klog('I', T('17:11:51'), 'orchestrator.go:1090', 'Best option to resize: eks-gpu-b'));
at('17:11:51', klog('I', T('17:11:51'), 'orchestrator.go:177', 'Final scale-up plan: [{eks-gpu-b 0->1 (max: 4)}]'));
at('17:11:51', klog('I', T('17:11:51'), 'executor.go:142', 'Scale-up: setting group eks-gpu-b size to 1'));
at('17:11:51', klog('I', T('17:11:51'), 'auto_scaling_groups.go:265', 'Setting asg eks-gpu-b size to 1'));
for (let t = loopStart; t <= loopEnd; t += 10_000) {
  const iso = new Date(t).toISOString();
  ca.push(klog('I', iso, 'static_autoscaler.go:317', 'Starting main loop'));
  if ((t - loopStart) % 60_000 === 0) ca.push(klog('I', iso, 'auto_scaling_groups.go:436', 'Regenerating instance to ASG map for ASG tags: map[k8s.io/cluster-autoscaler/enabled: k8s.io/cluster-autoscaler/shop-prod:]'));
  const due = [...caEvents.keys()].filter((k) => k >= t && k < t + 10_000).sort((a, b) => a - b);
  let any = false;
  for (const k of due) {
    ca.push(...caEvents.get(k));
    any = true;
  }
  if (!any) ca.push(klog('I', iso, 'static_autoscaler.go:612', 'No unschedulable pods'));
}
writeFileSync(join(DIR, 'cluster-autoscaler.log'), `${ca.join('\n')}\n`);

// Karpenter v1.14.1's JSON lines (zap, logger "controller")
const kl = [];
const COMMIT = '4d1b7e9';
const kline = (time, controller, message, values = {}, level = 'INFO') =>
  kl.push(JSON.stringify({ level, time, logger: 'controller', message, commit: COMMIT, controller, namespace: '', name: '', reconcileID: uuid(`rid:${time}:${message}`), ...values }));
const ms = (hms, m) => `${DAY}T${hms}.${String(m).padStart(3, '0')}Z`;
const kObj = (n) => ({ name: n });
// what a quiet Karpenter logs between decisions (nodeclass status every few minutes, at INFO only on change): the start of the window
kline(ms('12:00:04', 518), 'nodeclass', 'discovered ssm parameter', { controllerGroup: 'karpenter.k8s.aws', controllerKind: 'EC2NodeClass', EC2NodeClass: kObj('default'), name: 'default', parameter: '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id', value: 'ami-0a4c8e2f1b3d59687' });
kline(ms('12:30:43', 112), 'provisioner', 'found provisionable pod(s)', { Pods: 'shop/web-6c9f7d8b5-4kq2z, shop/web-6c9f7d8b5-m7xw9', duration: '21.87ms' });
kline(ms('12:30:43', 131), 'provisioner', 'computed new nodeclaim(s) to fit pod(s)', { nodeclaims: 1, pods: 2 });
kline(ms('12:30:44', 6), 'provisioner', 'created nodeclaim', { NodePool: kObj('default'), NodeClaim: kObj('default-x5fz8'), requests: { cpu: '1100m', memory: '1Gi', pods: '5' }, 'instance-types': 'c5.xlarge, c5a.xlarge, c6i.xlarge, m5.large, m5a.large and 41 other(s)' });
kline(ms('12:30:47', 380), 'nodeclaim.lifecycle', 'launched nodeclaim', { controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: kObj('default-x5fz8'), name: 'default-x5fz8', 'provider-id': `aws:///${NODES.kWeb.zone}/${NODES.kWeb.id}`, 'instance-type': NODES.kWeb.type, zone: NODES.kWeb.zone, 'capacity-type': 'spot', allocatable: { cpu: '3920m', 'ephemeral-storage': '17Gi', memory: '6584Mi', pods: '58' } });
kline(ms('12:31:21', 902), 'nodeclaim.lifecycle', 'registered nodeclaim', { controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: kObj('default-x5fz8'), name: 'default-x5fz8', 'provider-id': `aws:///${NODES.kWeb.zone}/${NODES.kWeb.id}`, Node: kObj(nameOf(NODES.kWeb)) });
kline(ms('12:31:49', 214), 'nodeclaim.lifecycle', 'initialized nodeclaim', { controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: kObj('default-x5fz8'), name: 'default-x5fz8', 'provider-id': `aws:///${NODES.kWeb.zone}/${NODES.kWeb.id}`, Node: kObj(nameOf(NODES.kWeb)), allocatable: { cpu: '3920m', 'ephemeral-storage': '17Gi', memory: '6584Mi', pods: '58' } });
// 15:10 consolidation, v1.9+ wording (disruption/queue.go:319-322 @v1.14.1)
const cmdId = uuid('cmd:consolidate');
kline(ms('15:10:01', 448), 'disruption', 'disrupting node(s)', {
  command: `Underutilized/${cmdId}: replace: nodepools=[default]: [${nameOf(NODES.kOld)}] -> [1 replacement] (savings: $0.31)`,
  decision: 'replace', 'disrupted-node-count': 1, 'replacement-node-count': 1, 'pod-count': 4,
  'disrupted-nodes': [{ Node: kObj(nameOf(NODES.kOld)), NodeClaim: kObj('default-7x2kq'), 'instance-type': 'm5.2xlarge', 'capacity-type': 'on-demand' }],
  'replacement-nodes': [{ 'capacity-type': 'spot', 'instance-types': 'm5.large, m5a.large, m6i.large, c5.xlarge and 12 other(s)' }],
});
kline(ms('15:10:01', 502), 'node.termination', 'tainted node', { controllerGroup: '', controllerKind: 'Node', Node: kObj(nameOf(NODES.kOld)), name: nameOf(NODES.kOld), 'taint.Key': 'karpenter.sh/disrupted', 'taint.Value': '', 'taint.Effect': 'NoSchedule' });
kline(ms('15:10:02', 71), 'disruption', 'created nodeclaim', { NodePool: kObj('default'), NodeClaim: kObj('default-p9w4n'), requests: { cpu: '2150m', memory: '3Gi', pods: '8' }, 'instance-types': 'm5.large, m5a.large, m6i.large, c5.xlarge and 12 other(s)' });
kline(ms('15:10:05', 640), 'nodeclaim.lifecycle', 'launched nodeclaim', { controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: kObj('default-p9w4n'), name: 'default-p9w4n', 'provider-id': `aws:///${NODES.kNew.zone}/${NODES.kNew.id}`, 'instance-type': 'm5.large', zone: NODES.kNew.zone, 'capacity-type': 'spot', allocatable: { cpu: '1930m', 'ephemeral-storage': '17Gi', memory: '6844Mi', pods: '29' } });
kline(ms('15:10:58', 330), 'nodeclaim.lifecycle', 'registered nodeclaim', { controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: kObj('default-p9w4n'), name: 'default-p9w4n', 'provider-id': `aws:///${NODES.kNew.zone}/${NODES.kNew.id}`, Node: kObj(nameOf(NODES.kNew)) });
kline(ms('15:11:20', 47), 'nodeclaim.lifecycle', 'initialized nodeclaim', { controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: kObj('default-p9w4n'), name: 'default-p9w4n', 'provider-id': `aws:///${NODES.kNew.zone}/${NODES.kNew.id}`, Node: kObj(nameOf(NODES.kNew)), allocatable: { cpu: '1930m', memory: '6844Mi', pods: '29' } });
kline(ms('15:11:39', 880), 'node.termination', 'deleted node', { controllerGroup: '', controllerKind: 'Node', Node: kObj(nameOf(NODES.kOld)), name: nameOf(NODES.kOld) });
kline(ms('15:11:42', 5), 'nodeclaim.lifecycle', 'deleted nodeclaim', { controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: kObj('default-7x2kq'), name: 'default-7x2kq', Node: kObj(nameOf(NODES.kOld)), 'provider-id': `aws:///${NODES.kOld.zone}/${NODES.kOld.id}` });
// an offering the AWS provider marked unavailable (V1 debug line of a cluster that logs at debug)
kline(ms('16:40:12', 301), 'nodeclaim.lifecycle', 'removing offering from offerings', { reason: 'InsufficientInstanceCapacity', 'instance-type': 'c6i.xlarge', zone: 'eu-west-1a', 'capacity-type': 'spot', ttl: '3m0s' }, 'DEBUG');
kline(ms('17:58:31', 77), 'nodeclass', 'discovered ssm parameter', { controllerGroup: 'karpenter.k8s.aws', controllerKind: 'EC2NodeClass', EC2NodeClass: kObj('default'), name: 'default', parameter: '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id', value: 'ami-0a4c8e2f1b3d59687' });
writeFileSync(join(DIR, 'karpenter.log'), `${kl.join('\n')}\n`);
mkdirSync(DIR, { recursive: true });
