import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/model/k8s.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';
import { findCaStatusConfigMap, parseCaStatus, parseGoTimeString } from '../../src/simulate/ca-status.js';

function statusConfigMap(status: string | undefined, lastUpdated?: string, ns = 'kube-system'): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cluster-autoscaler-status',
      namespace: ns,
      uid: '0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a',
      resourceVersion: '918273',
      creationTimestamp: '2026-03-01T09:00:00Z',
      ...(lastUpdated
        ? { annotations: { 'cluster-autoscaler.kubernetes.io/last-updated': lastUpdated } }
        : {}),
    },
    ...(status !== undefined ? { data: { status } } : {}),
  };
}

// CA <= 1.29: clusterstate/api/utils.go GetReadableString, written by clusterstate/utils/status.go.
const TEXT_129 = `Cluster-autoscaler status at 2026-03-01 10:00:05.123456789 +0000 UTC:
Cluster-wide:
  Health:      Healthy (ready=4 unready=0 (resourceUnready=0) notStarted=0 longNotStarted=0 registered=4 longUnregistered=0)
               LastProbeTime:      2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789
               LastTransitionTime: 2026-02-28 08:00:00.104520212 +0000 UTC m=+10.504361729
  ScaleUp:     InProgress (ready=4 registered=4)
               LastProbeTime:      2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789
               LastTransitionTime: 2026-03-01 09:58:30.004361729 +0000 UTC m=+3505.4
  ScaleDown:   NoCandidates (candidates=0)
               LastProbeTime:      2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789
               LastTransitionTime: 2026-02-28 08:00:00.104520212 +0000 UTC m=+10.504361729

NodeGroups:
  Name:        eks-general-20260105-7ac6d3f2
  Health:      Healthy (ready=3 unready=0 (resourceUnready=0) notStarted=0 longNotStarted=0 registered=3 longUnregistered=0 cloudProviderTarget=3 (minSize=1, maxSize=10))
               LastProbeTime:      2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789
               LastTransitionTime: 2026-02-28 08:00:00.104520212 +0000 UTC m=+10.504361729
  ScaleUp:     NoActivity (ready=3 cloudProviderTarget=3)
               LastProbeTime:      2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789
               LastTransitionTime: 2026-02-28 08:00:00.104520212 +0000 UTC m=+10.504361729
  ScaleDown:   NoCandidates (candidates=0)
               LastProbeTime:      2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789
               LastTransitionTime: 2026-02-28 08:00:00.104520212 +0000 UTC m=+10.504361729

  Name:        eks-gpu-20260105-1b2c3d4e
  Health:      Healthy (ready=1 unready=0 (resourceUnready=0) notStarted=0 longNotStarted=0 registered=1 longUnregistered=0 cloudProviderTarget=2 (minSize=0, maxSize=4))
               LastProbeTime:      2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789
               LastTransitionTime: 2026-02-28 08:00:00.104520212 +0000 UTC m=+10.504361729
  ScaleUp:     Backoff (ready=1 cloudProviderTarget=2)
               LastProbeTime:      2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789
               LastTransitionTime: 2026-03-01 09:59:00.5 +0000 UTC m=+3540.1
  ScaleDown:   NoCandidates (candidates=0)
               LastProbeTime:      2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789
               LastTransitionTime: 2026-02-28 08:00:00.104520212 +0000 UTC m=+10.504361729
`;

// CA 1.30-1.34: gopkg.in/yaml.v2, struct field order (modelled on clusterstate/utils/status_test.yaml).
const YAML_V2 = `time: 2026-03-01 10:00:05.123456789 +0000 UTC
autoscalerStatus: Running
clusterWide:
  health:
    status: Healthy
    nodeCounts:
      registered:
        total: 5
        ready: 4
        notStarted: 1
        beingDeleted: 0
        unready:
          total: 0
          resourceUnready: 0
      longUnregistered: 0
      unregistered: 1
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-02-28T08:00:00Z"
  scaleUp:
    status: InProgress
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-03-01T09:58:30Z"
  scaleDown:
    status: NoCandidates
    candidates: 0
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-02-28T08:00:00Z"
nodeGroups:
- name: eks-general-20260105-7ac6d3f2
  health:
    status: Healthy
    nodeCounts:
      registered:
        total: 3
        ready: 3
        notStarted: 0
        beingDeleted: 0
        unready:
          total: 0
          resourceUnready: 0
      longUnregistered: 0
      unregistered: 0
    cloudProviderTarget: 3
    minSize: 1
    maxSize: 10
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-02-28T08:00:00Z"
  scaleUp:
    status: NoActivity
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-02-28T08:00:00Z"
  scaleDown:
    status: NoCandidates
    candidates: 0
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-02-28T08:00:00Z"
- name: eks-gpu-20260105-1b2c3d4e
  health:
    status: Healthy
    nodeCounts:
      registered:
        total: 2
        ready: 1
        notStarted: 1
        beingDeleted: 0
        unready:
          total: 0
          resourceUnready: 0
      longUnregistered: 0
      unregistered: 1
    cloudProviderTarget: 3
    minSize: 0
    maxSize: 4
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-02-28T08:00:00Z"
  scaleUp:
    status: Backoff
    backoffInfo:
      errorCode: placeholder-cannot-be-fulfilled
      errorMessage: AWS cannot provision any more instances for this node group
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-03-01T09:59:00Z"
  scaleDown:
    status: NoCandidates
    candidates: 0
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-02-28T08:00:00Z"
`;

// CA 1.35+: sigs.k8s.io/yaml, keys sorted, empty times as null, empty structs kept (suspended since 1.36).
const YAML_SORTED = `autoscalerStatus: Running
clusterWide:
  health:
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-02-28T08:00:00Z"
    nodeCounts:
      longUnregistered: 0
      registered:
        beingDeleted: 0
        notStarted: 0
        ready: 2
        suspended: 0
        total: 2
        unready:
          resourceUnready: 0
          total: 0
      unregistered: 0
    status: Healthy
  scaleDown:
    candidates: 1
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-03-01T09:40:00Z"
    status: CandidatesPresent
  scaleUp:
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: null
    status: NoActivity
nodeGroups:
- health:
    cloudProviderTarget: 2
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-02-28T08:00:00Z"
    maxSize: 10
    minSize: 1
    nodeCounts:
      longUnregistered: 0
      registered:
        beingDeleted: 0
        notStarted: 0
        ready: 2
        suspended: 0
        total: 2
        unready:
          resourceUnready: 0
          total: 0
      unregistered: 0
    status: Healthy
  name: eks-general-20260105-7ac6d3f2
  scaleDown:
    candidates: 1
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: "2026-03-01T09:40:00Z"
    status: CandidatesPresent
  scaleUp:
    backoffInfo:
      errorCode: ""
      errorMessage: ""
    lastProbeTime: "2026-03-01T10:00:04Z"
    lastTransitionTime: null
    status: NoActivity
time: 2026-03-01 10:00:05.123456789 +0000 UTC
`;

const NOW = new Date('2026-03-01T10:01:00Z');
const ANNOTATION = '2026-03-01 10:00:05.123456789 +0000 UTC';

describe('parseGoTimeString', () => {
  it.each([
    ['2026-03-01 10:00:05.123456789 +0000 UTC', '2026-03-01T10:00:05.123Z'],
    ['2026-03-01 11:00:05 +0100 CET', '2026-03-01T10:00:05.000Z'],
    ['2026-03-01 10:00:04.987654321 +0000 UTC m=+3600.123456789', '2026-03-01T10:00:04.987Z'],
    ['2026-03-01 05:00:05.5 -0500 EST', '2026-03-01T10:00:05.500Z'],
  ])('reads %s', (s, iso) => {
    expect(parseGoTimeString(s)?.toISOString()).toBe(iso);
  });

  it('rejects RFC 3339 and garbage', () => {
    expect(parseGoTimeString('2026-03-01T10:00:05Z')).toBeUndefined();
    expect(parseGoTimeString('yesterday')).toBeUndefined();
  });
});

describe('parseCaStatus', () => {
  it('reads the CA <= 1.29 text format', () => {
    const s = parseCaStatus(statusConfigMap(TEXT_129, ANNOTATION), NOW);
    expect(s.format).toBe('text');
    expect(s.problems).toEqual([]);
    expect(s.time?.toISOString()).toBe('2026-03-01T10:00:05.123Z');
    expect(s.autoscalerStatus).toBe('Running');
    expect(s.clusterHealth).toBe('Healthy');
    expect(s.clusterScaleUp).toBe('InProgress');
    expect(s.clusterCounts).toMatchObject({ ready: 4, registered: 4, unready: 0 });
    expect(s.nodeGroups).toHaveLength(2);
    expect(s.nodeGroups[0]).toMatchObject({
      name: 'eks-general-20260105-7ac6d3f2',
      health: 'Healthy',
      scaleUpStatus: 'NoActivity',
      cloudProviderTarget: 3,
      minSize: 1,
      maxSize: 10,
      ready: 3,
      registered: 3,
    });
    expect(s.nodeGroups[1]).toMatchObject({
      name: 'eks-gpu-20260105-1b2c3d4e',
      scaleUpStatus: 'Backoff',
      minSize: 0,
      maxSize: 4,
    });
    expect(s.nodeGroups[1].backoff).toBeUndefined();
  });

  it('reads the early text format with (min=, max=)', () => {
    const text = `Cluster-autoscaler status at 2026-03-01 10:00:05 +0000 UTC:
Cluster-wide:
  Health:      Healthy (ready=1 unready=0 notStarted=0 longNotStarted=0 registered=1 longUnregistered=0)
NodeGroups:
  Name:        ng1
  Health:      Unhealthy (ready=0 unready=1 notStarted=0 longNotStarted=0 registered=1 cloudProviderTarget=5 (min=5, max=5))
`;
    const s = parseCaStatus(statusConfigMap(text), NOW);
    expect(s.nodeGroups[0]).toMatchObject({
      name: 'ng1',
      health: 'Unhealthy',
      minSize: 5,
      maxSize: 5,
      cloudProviderTarget: 5,
    });
  });

  it('reads an Initializing text status', () => {
    const s = parseCaStatus(
      statusConfigMap('Cluster-autoscaler status at 2026-03-01 10:00:05 +0000 UTC:\nInitializing'),
      NOW,
    );
    expect(s).toMatchObject({
      format: 'text',
      autoscalerStatus: 'Initializing',
      nodeGroups: [],
      problems: [],
    });
  });

  it('reads the 1.30-1.34 YAML in struct order, with backoff error details', () => {
    const s = parseCaStatus(statusConfigMap(YAML_V2, ANNOTATION), NOW);
    expect(s.format).toBe('yaml');
    expect(s.problems).toEqual([]);
    expect(s.time?.toISOString()).toBe('2026-03-01T10:00:05.123Z');
    expect(s.clusterCounts).toEqual({
      registered: 5,
      ready: 4,
      notStarted: 1,
      beingDeleted: 0,
      unready: 0,
      resourceUnready: 0,
      longUnregistered: 0,
      unregistered: 1,
    });
    const gpu = s.nodeGroups.find((g) => g.name === 'eks-gpu-20260105-1b2c3d4e');
    expect(gpu).toMatchObject({
      scaleUpStatus: 'Backoff',
      backoff: {
        errorCode: 'placeholder-cannot-be-fulfilled',
        errorMessage: 'AWS cannot provision any more instances for this node group',
      },
      cloudProviderTarget: 3,
      minSize: 0,
      maxSize: 4,
      ready: 1,
      registered: 2,
    });
    expect(s.nodeGroups[0].backoff).toBeUndefined();
  });

  it('reads the 1.35+ YAML with sorted keys and nulls, ignoring the always-present empty backoffInfo', () => {
    const s = parseCaStatus(statusConfigMap(YAML_SORTED, ANNOTATION), NOW);
    expect(s.problems).toEqual([]);
    expect(s.clusterScaleDown).toBe('CandidatesPresent');
    expect(s.nodeGroups).toEqual([
      {
        name: 'eks-general-20260105-7ac6d3f2',
        health: 'Healthy',
        scaleUpStatus: 'NoActivity',
        scaleDownStatus: 'CandidatesPresent',
        candidates: 1,
        cloudProviderTarget: 2,
        minSize: 1,
        maxSize: 10,
        ready: 2,
        registered: 2,
        counts: {
          registered: 2,
          ready: 2,
          notStarted: 0,
          suspended: 0,
          beingDeleted: 0,
          unready: 0,
          resourceUnready: 0,
          longUnregistered: 0,
          unregistered: 0,
        },
      },
    ]);
  });

  it.each([
    ['fresh: 55 s old', '2026-03-01T10:01:00Z', false],
    ['stale: just over 3 minutes old', '2026-03-01T10:03:05.200Z', true],
  ])('%s', (_name, now, stale) => {
    const s = parseCaStatus(statusConfigMap(YAML_V2, ANNOTATION), new Date(now));
    expect(s.stale).toBe(stale);
    expect(s.lastUpdated?.toISOString()).toBe('2026-03-01T10:00:05.123Z');
  });

  it('uses the newer of the annotation and the status time for staleness', () => {
    const s = parseCaStatus(statusConfigMap(YAML_V2, '2026-03-01 09:00:00 +0000 UTC'), NOW);
    expect(s.ageMs).toBe(NOW.getTime() - Date.parse('2026-03-01T10:00:05.123Z'));
    expect(s.stale).toBe(false);
  });

  it.each([
    ['no data.status', undefined, ['the ConfigMap has no data.status', 'the status has no timestamp']],
    ['broken YAML', 'nodeGroups: [\n  - name: x\n  bad', undefined],
    ['a YAML scalar', 'just words', ['status YAML is not a mapping', 'the status has no timestamp']],
    [
      'nodeGroups of the wrong type',
      'autoscalerStatus: Running\nnodeGroups: 3\n',
      [
        'nodeGroups is not a list',
        'status YAML lacks time, clusterWide.health, clusterWide.scaleUp, clusterWide.scaleDown, which CA always writes (truncated?)',
        'the status has no timestamp',
      ],
    ],
  ])('collects problems instead of throwing for %s', (_name, body, problems) => {
    const s = parseCaStatus(statusConfigMap(body), NOW);
    if (problems) expect(s.problems).toEqual(problems);
    else expect(s.problems[0]).toMatch(/^status is neither the text format nor valid YAML/);
    expect(s.stale).toBe(false);
  });

  it('reads complete statuses of both formats as readable', () => {
    for (const body of [TEXT_129, YAML_V2, YAML_SORTED]) expect(parseCaStatus(statusConfigMap(body), NOW).unreadable).toBeUndefined();
  });

  it.each([
    ['a YAML status cut mid-value', YAML_V2.slice(0, YAML_V2.indexOf('lastProbeTime') + 30), /^status is neither the text format nor valid YAML/],
    [
      'a YAML status cut at a line end',
      YAML_V2.split('\n').slice(0, YAML_V2.split('\n').findIndex((l) => l.startsWith('  scaleUp:'))).join('\n'),
      /^status YAML lacks clusterWide\.scaleUp, clusterWide\.scaleDown, which CA always writes/,
    ],
    ['a pre-1.30 text status cut mid-line', TEXT_129.slice(0, TEXT_129.indexOf('ScaleUp:') + 12), /^text status is cut short: it ends in "ScaleUp:/],
    ['a text status with only its header', 'Cluster-autoscaler status at 2026-03-01 10:00:05.123456789 +0000 UTC:\n', /text status has nothing after its header \(truncated\?\)/],
  ])('says what could not be read of %s, and keeps its time', (_name, body, said) => {
    const s = parseCaStatus(statusConfigMap(body, ANNOTATION), NOW);
    expect(s.unreadable).toMatch(said);
    expect(s.lastUpdated?.toISOString()).toBe('2026-03-01T10:00:05.123Z');
  });

  it('reports an unreadable last-updated annotation', () => {
    const s = parseCaStatus(statusConfigMap(YAML_V2, 'not a time'), NOW);
    expect(s.problems).toContain(
      'annotation cluster-autoscaler.kubernetes.io/last-updated is not a Go timestamp: "not a time"',
    );
  });
});

describe('findCaStatusConfigMap', () => {
  it('uses --namespace and --status-config-map-name', () => {
    const config = buildCaConfig({});
    config.flags.namespace = { value: 'autoscaling', origin: 'deployment', supported: true };
    config.flags.statusConfigMapName = { value: 'ca-status', origin: 'deployment', supported: true };
    const wanted = {
      ...statusConfigMap(YAML_V2, ANNOTATION, 'autoscaling'),
      metadata: { name: 'ca-status', namespace: 'autoscaling' },
    };
    const decoy = statusConfigMap(YAML_V2, ANNOTATION, 'kube-system');
    expect(findCaStatusConfigMap([decoy, wanted], config)).toBe(wanted);
    expect(findCaStatusConfigMap([decoy], config)).toBeUndefined();
  });

  it('defaults to kube-system/cluster-autoscaler-status', () => {
    const cm = statusConfigMap(YAML_V2, ANNOTATION);
    expect(findCaStatusConfigMap([cm], buildCaConfig({}))).toBe(cm);
  });
});
