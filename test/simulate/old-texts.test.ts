// Issue 14: old CA texts and long ages, as users paste them.
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/model/k8s.js';
import { formatDurationShort } from '../../src/model/duration.js';
import { parseCaStatus } from '../../src/simulate/ca-status.js';

// CA 1.2/1.3 (2018) status text as pasted without its header line; clusterstate/api/utils.go GetReadableString
const HEADERLESS_2018 = `Cluster-wide:
  Health:      Healthy (ready=3 unready=0 notStarted=0 longNotStarted=0 registered=3 longUnregistered=0)
               LastProbeTime:      2018-06-12 14:05:41.235207 +0000 UTC
               LastTransitionTime: 2018-06-01 09:12:02.131141 +0000 UTC
  ScaleUp:     NoActivity (ready=3 registered=3)
               LastProbeTime:      2018-06-12 14:05:41.235207 +0000 UTC
               LastTransitionTime: 2018-06-01 09:12:02.131141 +0000 UTC
  ScaleDown:   NoCandidates (candidates=0)
               LastProbeTime:      2018-06-12 14:05:41.235207 +0000 UTC
               LastTransitionTime: 2018-06-01 09:12:02.131141 +0000 UTC

NodeGroups:
  Name:        nodes.k8s.example.com
  Health:      Healthy (ready=3 unready=0 notStarted=0 longNotStarted=0 registered=3 longUnregistered=0 cloudProviderTarget=3 (minSize=1, maxSize=5))
               LastProbeTime:      2018-06-12 14:05:41.235207 +0000 UTC
               LastTransitionTime: 2018-06-01 09:12:02.131141 +0000 UTC
`;

function cm(status: string, lastUpdated?: string): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cluster-autoscaler-status',
      namespace: 'kube-system',
      ...(lastUpdated ? { annotations: { 'cluster-autoscaler.kubernetes.io/last-updated': lastUpdated } } : {}),
    },
    data: { status },
  };
}

describe('old CA status texts', () => {
  it('reads a headerless pre-2019 text status as the text format and says the header is missing', () => {
    const s = parseCaStatus(cm(HEADERLESS_2018, '2018-06-12 14:05:41.235207 +0000 UTC'), new Date('2018-06-12T14:06:00Z'));
    expect(s.format).toBe('text');
    expect(s.clusterHealth).toBe('Healthy');
    expect(s.nodeGroups[0]).toMatchObject({ name: 'nodes.k8s.example.com', minSize: 1, maxSize: 5 });
    expect(s.problems).toEqual(['text status without its "Cluster-autoscaler status at <time>:" header line']);
    expect(s.ageMs).toBeGreaterThan(0);
  });
});

describe('ages in prose', () => {
  it('prints ages of days as days and hours, not "63283h2m12.317s"', () => {
    const ms = ((63283 * 60 + 2) * 60 + 12.317) * 1000;
    expect(formatDurationShort(ms)).toBe('2636d19h');
    expect(formatDurationShort(49 * 3_600_000)).toBe('2d1h');
    expect(formatDurationShort(48 * 3_600_000)).toBe('2d');
  });

  it('keeps Go\'s form below two days ("10m", "1h30m")', () => {
    expect(formatDurationShort(600_000)).toBe('10m');
    expect(formatDurationShort(5_400_000)).toBe('1h30m');
  });
});

describe('a status text casdoctor cannot read', () => {
  it('is format "unknown" with its problems, not a YAML status without data', () => {
    const s = parseCaStatus(cm('autoscaler is running, 3 nodes, nothing to do'), new Date('2018-06-12T14:06:00Z'));
    expect(s.format).toBe('unknown');
    expect(s.problems).toContain('status YAML is not a mapping');
  });
});
