// What `casdoctor snapshot` must never write, planted in realistic objects: secrets the first scrubber missed (split
// `--password X`, URL credentials, AWS secret keys and key ids, GitHub and Slack tokens, probe header values, secret
// tags and StorageClass parameters), and with --redact the identities it left (resource ids, UIDs, node machine ids,
// the OIDC issuer id, host names in URLs and private registries).
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/gather/redact.js';
import { buildSnapshotFiles } from '../../src/gather/snapshot-writer.js';
import type { AutoScalingGroup } from '../../src/model/aws.js';
import type { Node, Pod, StorageClass } from '../../src/model/k8s.js';
import { emptyInputs, type RawInputs } from '../../src/model/snapshot.js';

const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLANTEDKEY';
const GITHUB = 'ghp_PLANTED0123456789abcdefghijklmnopqrstu';
const GITHUB_PAT = 'github_pat_11PLANTED0123456789_abcdefghijklmnopqrstuvwxyz0123';
const SLACK = 'xoxb-123456789012-PLANTED-slacktoken';

function pod(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'ledger-7d9f8c6b5-x2x4k',
      namespace: 'payments',
      uid: '5f1c9c0e-6c38-4d8c-9e63-3b6a0c0d4e21',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'ledger-7d9f8c6b5', uid: '0b7e1c55-2f4e-4a8e-8a51-7d3c2b1a0f99', controller: true },
      ],
      annotations: {
        'ci.example/notify': `slack ${SLACK}`,
        'ci.example/issuer': 'https://oidc.eks.us-east-1.amazonaws.com/id/0123456789ABCDEF0123456789ABCDEF',
      },
    },
    spec: {
      nodeName: 'ip-10-0-14-37.ec2.internal',
      containers: [
        {
          name: 'ledger',
          image: 'registry.acme-corp.io:5000/payments/ledger:1.4.2',
          args: ['--listen=:8080', '--db-password', 'PLANTED-split', '--upstream=https://svc:PLANTED-url@ledger-db.acme-corp.io:5432'],
          command: ['sh', '-c', `AWS_SECRET_ACCESS_KEY=${AWS_SECRET} exec /ledger --token ${GITHUB}`],
          livenessProbe: {
            httpGet: { path: '/healthz', port: 8080, httpHeaders: [{ name: 'Authorization', value: 'PLANTED-probe-header' }] },
          },
          readinessProbe: { httpGet: { path: '/ready', port: 8080, httpHeaders: [{ name: 'X-Api-Key', value: 'PLANTED-ready' }] } },
          resources: { requests: { cpu: '100m', memory: '128Mi' } },
        },
      ],
    },
    status: { phase: 'Running' },
  } as unknown as Pod;
}

function node(): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'ip-10-0-14-37.ec2.internal', uid: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f', labels: {} },
    spec: { providerID: 'aws:///us-east-1a/i-0a1b2c3d4e5f60718' },
    status: {
      addresses: [{ type: 'InternalIP', address: '10.0.14.37' }],
      nodeInfo: {
        machineID: 'ec2a4a5c0c1b6b5f4f2f0b0e1d7d6c3a',
        systemUUID: 'ec2a4a5c-0c1b-6b5f-4f2f-0b0e1d7d6c3a',
        bootID: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
        kubeletVersion: 'v1.31.4-eks-1234567',
      },
    },
  } as unknown as Node;
}

function storageClass(): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'encrypted' },
    provisioner: 'ebs.csi.aws.com',
    volumeBindingMode: 'WaitForFirstConsumer',
    parameters: { type: 'gp3', kmsKeyId: 'plain-id', 'csi.storage.k8s.io/provisioner-secret-name': 'ebs-secret', 'encryption-key': 'PLANTED-sc-key', password: 'PLANTED-sc-password' },
  } as unknown as StorageClass;
}

function asg(): AutoScalingGroup {
  return {
    AutoScalingGroupName: 'demo-general',
    MinSize: 1,
    MaxSize: 10,
    DesiredCapacity: 2,
    AvailabilityZones: ['us-east-1a'],
    VPCZoneIdentifier: 'subnet-0a1b2c3d4e5f60718,subnet-0b1b2c3d4e5f60718',
    LaunchTemplate: { LaunchTemplateId: 'lt-0abcdef1234567890', LaunchTemplateName: 'demo-general', Version: '$Latest' },
    Instances: [],
    Tags: [
      { Key: 'k8s.io/cluster-autoscaler/enabled', Value: 'true', ResourceId: 'demo-general', ResourceType: 'auto-scaling-group', PropagateAtLaunch: false },
      { Key: 'deploy-token', Value: 'PLANTED-tag-token', ResourceId: 'demo-general', ResourceType: 'auto-scaling-group', PropagateAtLaunch: false },
      { Key: 'team/api-key', Value: 'PLANTED-tag-key', ResourceId: 'demo-general', ResourceType: 'auto-scaling-group', PropagateAtLaunch: false },
    ],
  } as unknown as AutoScalingGroup;
}

function inputs(): RawInputs {
  const raw = emptyInputs();
  raw.pods = [pod()];
  raw.nodes = [node()];
  raw.storageClasses = [storageClass()];
  raw.autoScalingGroups = [asg()];
  raw.launchTemplateVersions = [
    {
      LaunchTemplateId: 'lt-0abcdef1234567890',
      LaunchTemplateName: 'demo-general',
      VersionNumber: 3,
      LaunchTemplateData: {
        ImageId: 'ami-0123456789abcdef0',
        InstanceType: 'm5.large',
        NetworkInterfaces: [{ SubnetId: 'subnet-0a1b2c3d4e5f60718', Groups: ['sg-01234567'] }],
        SecurityGroupIds: ['sg-0123456789abcdef0'],
        BlockDeviceMappings: [{ DeviceName: '/dev/xvda', Ebs: { SnapshotId: 'snap-0123456789abcdef0', VolumeSize: 80 } }],
        TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'vault-secret', Value: 'PLANTED-lt-tag' }] }],
      },
    },
  ] as unknown as RawInputs['launchTemplateVersions'];
  raw.scalingActivities = [
    {
      ActivityId: '2d6a8f0e-1b3c-4d5e-8f7a-9b0c1d2e3f4a',
      AutoScalingGroupName: 'demo-general',
      Description: 'Launching a new EC2 instance: i-0a1b2c3d4e5f60718',
      Cause: `At 2026-11-21T09:50:00Z an instance was started in VPC vpc-0fedcba9876543210 with volume vol-0123456789abcdef0. creds aws_secret_access_key=${AWS_SECRET} id AKIAIOSFODNN7PLANTED ${GITHUB_PAT}`,
      StartTime: '2026-11-21T09:50:12.345000+00:00',
      StatusCode: 'Successful',
    },
  ] as unknown as RawInputs['scalingActivities'];
  raw.eksNodegroups = [
    {
      clusterName: 'demo',
      nodegroupName: 'general',
      nodegroupArn: 'arn:aws:eks:us-east-1:111122223333:nodegroup/demo/general/1a2b3c4d-0000-1111-2222-333344445555',
      tags: { 'secret-token': 'PLANTED-ng-tag', team: 'payments' },
      subnets: ['subnet-0a1b2c3d4e5f60718'],
    },
  ] as unknown as RawInputs['eksNodegroups'];
  for (const k of ['pods', 'nodes', 'storageClasses', 'autoScalingGroups', 'launchTemplateVersions', 'scalingActivities', 'eksNodegroups'] as const)
    raw.provided.add(k);
  return raw;
}

const OPTS = { statusConfigMaps: [], takenAt: new Date('2026-11-21T10:00:00Z'), source: 'test', version: 'test' };

function text(raw: RawInputs, redactor?: Redactor): string {
  return buildSnapshotFiles(raw, { ...OPTS, ...(redactor ? { redactor } : {}) })
    .map((f) => f.content)
    .join('\n');
}

function file(raw: RawInputs, name: string, redactor?: Redactor): any {
  const f = buildSnapshotFiles(raw, { ...OPTS, ...(redactor ? { redactor } : {}) }).find((x) => x.name === name);
  return JSON.parse(f!.content);
}

describe('snapshot scrubber', () => {
  it('writes none of the planted secrets', () => {
    const out = text(inputs());
    for (const secret of ['PLANTED', AWS_SECRET, 'AKIAIOSFODNN7PLANTED', GITHUB, GITHUB_PAT, SLACK]) expect(out, secret).not.toContain(secret);
  });

  it('keeps the shape of what it scrubs: flag names, header names, tag and parameter keys, harmless values', () => {
    const raw = inputs();
    const c = file(raw, 'pods.json').items[0].spec.containers[0];
    expect(c.args).toEqual(['--listen=:8080', '--db-password', '[redacted]', '--upstream=https://svc:[redacted]@ledger-db.acme-corp.io:5432']);
    expect(c.command[2]).toBe('AWS_SECRET_ACCESS_KEY=[redacted] exec /ledger --token [redacted]');
    expect(c.livenessProbe.httpGet.httpHeaders).toEqual([{ name: 'Authorization', value: '[redacted]' }]);
    const sc = file(raw, 'storageclasses.json').items[0];
    expect(sc.parameters).toEqual({
      type: 'gp3',
      kmsKeyId: 'plain-id',
      'csi.storage.k8s.io/provisioner-secret-name': 'ebs-secret',
      'encryption-key': '[redacted]',
      password: '[redacted]',
    });
    const tags = file(raw, 'asgs.json').AutoScalingGroups[0].Tags.map((t: any) => [t.Key, t.Value]);
    expect(tags).toEqual([
      ['k8s.io/cluster-autoscaler/enabled', 'true'],
      ['deploy-token', '[redacted]'],
      ['team/api-key', '[redacted]'],
    ]);
    expect(file(raw, 'eks-nodegroup-demo-general.json').nodegroup.tags).toEqual({ 'secret-token': '[redacted]', team: 'payments' });
  });
});

describe('snapshot --redact', () => {
  const originals = [
    'subnet-0a1b2c3d4e5f60718',
    'subnet-0b1b2c3d4e5f60718',
    'vpc-0fedcba9876543210',
    'sg-01234567',
    'sg-0123456789abcdef0',
    'ami-0123456789abcdef0',
    'lt-0abcdef1234567890',
    'vol-0123456789abcdef0',
    'snap-0123456789abcdef0',
    '5f1c9c0e-6c38-4d8c-9e63-3b6a0c0d4e21',
    '0b7e1c55-2f4e-4a8e-8a51-7d3c2b1a0f99',
    'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
    'ec2a4a5c0c1b6b5f4f2f0b0e1d7d6c3a',
    'ec2a4a5c-0c1b-6b5f-4f2f-0b0e1d7d6c3a',
    '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
    '2d6a8f0e-1b3c-4d5e-8f7a-9b0c1d2e3f4a',
    '0123456789ABCDEF0123456789ABCDEF',
    'acme-corp.io',
  ];

  it('leaves none of the resource ids, UIDs, node machine ids, OIDC issuer id or private host names', () => {
    const out = text(inputs(), new Redactor('salt'));
    expect(originals.filter((o) => out.includes(o))).toEqual([]);
    // what names nobody stays
    expect(out).toContain('k8s.io/cluster-autoscaler/enabled');
    expect(out).toContain('v1.31.4-eks-1234567');
  });

  it('uses one pseudonym per value across objects, so references still match', () => {
    const r = new Redactor('salt');
    const raw = inputs();
    const files = buildSnapshotFiles(raw, { ...OPTS, redactor: r });
    const get = (name: string) => JSON.parse(files.find((f) => f.name === name)!.content);
    const subnet = r.redactString('subnet-0a1b2c3d4e5f60718');
    expect(get('asgs.json').AutoScalingGroups[0].VPCZoneIdentifier.split(',')[0]).toBe(subnet);
    expect(get('launch-template-versions.json').LaunchTemplateVersions[0].LaunchTemplateData.NetworkInterfaces[0].SubnetId).toBe(subnet);
    expect(get('asgs.json').AutoScalingGroups[0].LaunchTemplate.LaunchTemplateId).toBe(
      get('launch-template-versions.json').LaunchTemplateVersions[0].LaunchTemplateId,
    );
    expect(get('pods.json').items[0].spec.containers[0].image).toMatch(/^host-[0-9a-f]{10}\.redacted\.invalid:5000\/payments\/ledger:1\.4\.2$/);
  });
});

describe('snapshot scrubbing, second review (secrets the first pass still missed)', () => {
  it("scrubs the split --password form in CA's logged command line, camelCase secret parameters and bare AWS secret keys", () => {
    const raw = emptyInputs();
    raw.caLogTexts = [
      {
        namespace: 'kube-system',
        pod: 'cluster-autoscaler-8kg94h6kv-htgq4',
        container: 'cluster-autoscaler',
        previous: false,
        sinceSeconds: 3600,
        truncated: false,
        text: 'I1121 09:58:02.118000       1 main.go:661] Command line: --v=4 --cloud-provider=aws --password hunter2SECRETM --cloud-config=/etc/ca.conf\n',
      },
    ];
    raw.storageClasses = [
      { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'gp3-enc' }, provisioner: 'ebs.csi.aws.com', parameters: { type: 'gp3', encryptionKey: 'SECRETK-planted' } } as StorageClass,
    ];
    raw.provided.add('storageClasses');
    raw.autoScalingGroups = [
      {
        AutoScalingGroupName: 'demo-general',
        MinSize: 0,
        MaxSize: 3,
        DesiredCapacity: 0,
        Tags: [{ Key: 'note', Value: 'rotate wJalrXUtnFEMI/K7MDENG/bPxRfiCYS3CR3TKEY2 monthly', ResourceId: 'demo-general', ResourceType: 'auto-scaling-group', PropagateAtLaunch: false }],
      } as unknown as AutoScalingGroup,
    ];
    raw.provided.add('autoScalingGroups');
    const out = buildSnapshotFiles(raw, OPTS)
      .map((f) => f.content)
      .join('\n');
    expect(out).not.toContain('hunter2SECRETM');
    expect(out).not.toContain('SECRETK-planted');
    expect(out).not.toContain('wJalrXUtnFEMI/K7MDENG/bPxRfiCYS3CR3TKEY2');
    // what is not a secret stays: the flags, the parameter's name, the tag's words
    expect(out).toContain('--cloud-config=/etc/ca.conf');
    expect(out).toContain('encryptionKey');
    expect(out).toContain('rotate');
  });
});
