// Per-check tables for preflight's zonal storage and zone spread checks.
import { describe, expect, it } from 'vitest';
import { deployment, podSpec, preflightRun, yamlStream } from './preflight-harness.js';

const storageClass = (name: string, provisioner: string, bindingMode?: string, isDefault = false) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: {
    name,
    ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
  },
  provisioner,
  ...(bindingMode ? { volumeBindingMode: bindingMode } : {}),
});

const statefulSet = (name: string, storageClassName?: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, namespace: 'data' },
  spec: {
    serviceName: name,
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: podSpec({
        containers: [
          {
            name: 'db',
            image: 'postgres:17',
            resources: { requests: { cpu: '500m', memory: '2Gi' } },
            volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
          },
        ],
        spec,
      }),
    },
    volumeClaimTemplates: [
      {
        metadata: { name: 'data' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          ...(storageClassName ? { storageClassName } : {}),
          resources: { requests: { storage: '100Gi' } },
        },
      },
    ],
  },
});

const PER_ZONE = `apiVersion: casdoctor.io/v1alpha1
kind: NodeGroups
nodeGroups:
${['a', 'b', 'c']
  .map(
    (z) =>
      `  - name: general-1${z}\n    instanceType: m5.large\n    zones: [us-east-1${z}]\n    minSize: 0\n    maxSize: 5\n`,
  )
  .join('')}`;

describe('volume-immediate-binding-multi-az', () => {
  it('fires for a StatefulSet claim from an Immediate EBS class (the default class too) whose groups span zones', () => {
    const r = preflightRun(
      yamlStream(storageClass('gp2', 'ebs.csi.aws.com', undefined, true), statefulSet('postgres')),
    );
    const [f] = r.of('volume-immediate-binding-multi-az');
    expect(f.subject).toEqual({ kind: 'StatefulSet', name: 'postgres', namespace: 'data' });
    expect(f.message).toContain(
      'claim data-postgres-0 from StorageClass gp2 (ebs.csi.aws.com, Immediate binding)',
    );
    expect(f.message).toContain('span us-east-1a, us-east-1b, us-east-1c');
  });

  it('reports a PVC among the manifests by itself, once, whoever mounts it', () => {
    const pvc = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'uploads', namespace: 'web' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'gp2',
        resources: { requests: { storage: '10Gi' } },
      },
    };
    const mounting = (name: string) =>
      deployment(name, {
        spec: { volumes: [{ name: 'u', persistentVolumeClaim: { claimName: 'uploads' } }] },
      });
    const r = preflightRun(
      yamlStream(storageClass('gp2', 'ebs.csi.aws.com'), pvc, mounting('a'), mounting('b')),
    );
    expect(r.of('volume-immediate-binding-multi-az').map((f) => f.subject)).toEqual([
      { kind: 'PersistentVolumeClaim', name: 'uploads', namespace: 'web' },
    ]);
  });

  it('does not fire for WaitForFirstConsumer, for EFS, or when the fitting groups are in one zone', () => {
    const wffc = preflightRun(
      yamlStream(storageClass('gp3', 'ebs.csi.aws.com', 'WaitForFirstConsumer'), statefulSet('a', 'gp3')),
    );
    expect(wffc.of('volume-immediate-binding-multi-az')).toEqual([]);
    const efs = preflightRun(yamlStream(storageClass('efs', 'efs.csi.aws.com'), statefulSet('a', 'efs')));
    expect(efs.of('volume-immediate-binding-multi-az')).toEqual([]);
    const oneZone = statefulSet('a', 'gp2', {
      nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1a' },
    });
    const r = preflightRun(yamlStream(storageClass('gp2', 'ebs.csi.aws.com'), oneZone), {
      eksctl: null,
      nodeGroups: PER_ZONE,
    });
    expect(r.of('volume-immediate-binding-multi-az')).toEqual([]);
  });
});

describe('storage-class-immediate-binding', () => {
  it('fires (info) for a zonal class binding Immediately, noting when it is the default', () => {
    const r = preflightRun(yamlStream(storageClass('gp2', 'kubernetes.io/aws-ebs', undefined, true)), {
      eksctl: null,
    });
    const [f] = r.of('storage-class-immediate-binding');
    expect(f).toMatchObject({ severity: 'info', subject: { kind: 'StorageClass', name: 'gp2' } });
    expect(f.message).toContain('and is the default class');
  });

  it('does not fire for WaitForFirstConsumer or regional storage', () => {
    const r = preflightRun(
      yamlStream(
        storageClass('gp3', 'ebs.csi.aws.com', 'WaitForFirstConsumer'),
        storageClass('efs', 'efs.csi.aws.com', 'Immediate'),
      ),
      { eksctl: null },
    );
    expect(r.of('storage-class-immediate-binding')).toEqual([]);
  });
});

describe('workload-zonal-volume-multi-az-group', () => {
  it('fires for zonal volumes on a group spanning zones, naming the template zone', () => {
    const r = preflightRun(
      yamlStream(
        storageClass('gp3', 'ebs.csi.aws.com', 'WaitForFirstConsumer'),
        statefulSet('postgres', 'gp3'),
      ),
    );
    const [f] = r.of('workload-zonal-volume-multi-az-group');
    expect(f.message).toContain("CA's template for general is in us-east-1a only");
    expect(f.message).toContain('us-east-1b or us-east-1c');
    expect(f.remediation).toContain('availabilityZones: [us-east-1b]');
  });

  it('does not fire with one group per zone, nor for regional volumes', () => {
    const perZone = preflightRun(
      yamlStream(storageClass('gp3', 'ebs.csi.aws.com', 'WaitForFirstConsumer'), statefulSet('p', 'gp3')),
      {
        eksctl: null,
        nodeGroups: PER_ZONE,
      },
    );
    expect(perZone.of('workload-zonal-volume-multi-az-group')).toEqual([]);
    const efs = preflightRun(yamlStream(storageClass('efs', 'efs.csi.aws.com'), statefulSet('p', 'efs')));
    expect(efs.of('workload-zonal-volume-multi-az-group')).toEqual([]);
  });
});

describe('workload-topology-spread-exceeds-zones', () => {
  const spread = (extra: Record<string, unknown>) => ({
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'web' } },
        ...extra,
      },
    ],
  });

  it('fires as an error when minDomains exceeds the zones the fitting groups cover', () => {
    const d = deployment('web', { replicas: 4, spec: spread({ minDomains: 4 }) });
    const [f] = preflightRun(yamlStream(d)).of('workload-topology-spread-exceeds-zones');
    expect(f.severity).toBe('error');
    expect(f.message).toContain(
      'minDomains 4 and maxSkew 1, but the node groups it fits cover only 3 zone(s)',
    );
  });

  it("warns when the groups launch into more zones than CA's templates represent", () => {
    const d = deployment('web', { replicas: 3, spec: spread({}) });
    const [f] = preflightRun(yamlStream(d)).of('workload-topology-spread-exceeds-zones');
    expect(f.severity).toBe('warning');
    expect(f.message).toContain("CA's templates represent only us-east-1a");
  });

  it('does not fire for ScheduleAnyway, for one group per zone, or for few enough replicas', () => {
    const anyway = deployment('web', { replicas: 3, spec: spread({ whenUnsatisfiable: 'ScheduleAnyway' }) });
    expect(preflightRun(yamlStream(anyway)).of('workload-topology-spread-exceeds-zones')).toEqual([]);
    const strict = deployment('web', { replicas: 3, spec: spread({ minDomains: 3 }) });
    expect(
      preflightRun(yamlStream(strict), { eksctl: null, nodeGroups: PER_ZONE }).of(
        'workload-topology-spread-exceeds-zones',
      ),
    ).toEqual([]);
    const one = deployment('web', { replicas: 1, spec: spread({}) });
    expect(preflightRun(yamlStream(one)).of('workload-topology-spread-exceeds-zones')).toEqual([]);
  });
});
