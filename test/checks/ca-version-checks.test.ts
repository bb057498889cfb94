// The checks that depend on CA's version and its newer events: each fires once and stays quiet once.
import { describe, expect, it } from 'vitest';
import type { ConfigMap, KubeEvent } from '../../src/model/k8s.js';
import { node } from '../builders/k8s.js';
import { caDeployment, DEFAULT_CA_ARGS, world } from '../builders/world.js';
import { findingsOf } from './harness.js';

function withCa(version: string, extra: string[] = []) {
  const w = world();
  w.raw.deployments = [
    caDeployment([...DEFAULT_CA_ARGS, ...extra], `registry.k8s.io/autoscaling/cluster-autoscaler:v${version}`),
  ];
  return w;
}

describe('ca-config-invalid names the release that has the flag', () => {
  it('says "upgrade to 1.36 or drop it" for --salvo-scale-up on CA 1.35', () => {
    const [f] = findingsOf(withCa('1.35.2', ['--salvo-scale-up']).raw, 'ca-config-invalid');
    expect(f.message).toBe(
      'CA flags (Deployment kube-system/cluster-autoscaler) pass --salvo-scale-up, which CA has only from 1.36; CA v1.35.2 exits with "unknown flag".',
    );
    expect(f.remediation).toBe('Upgrade CA to 1.36 or newer, or drop --salvo-scale-up from the Deployment.');
  });
  it('says the flag was removed for --max-empty-bulk-delete on CA 1.33', () => {
    const [f] = findingsOf(withCa('1.33.0', ['--max-empty-bulk-delete=10']).raw, 'ca-config-invalid');
    expect(f.message).toContain('which CA removed in 1.33');
  });
  it('stays quiet about the 1.35-1.37 flags on CA 1.37', () => {
    const flags = [
      '--salvo-scale-up',
      '--salvo-scale-up-budget=2m',
      '--capacity-quotas-enabled',
      '--fastpath-binpacking-enabled',
      '--capacity-buffer-pod-dry-run-enabled=false',
      '--node-removal-latency-tracking-enabled',
      '--max-node-skip-eval-time-tracker-enabled',
      '--enable-graceful-degradation',
      '--pending-pods-batching-timeout=3m',
      '--scheduler-verbosity=1',
      '--max-node-startup-time=20m',
    ];
    expect(findingsOf(withCa('1.37.0', flags).raw, 'ca-config-invalid')).toEqual([]);
  });
});

describe('ca-provider-id-unrecognized', () => {
  const hybrid = () =>
    node('mi-0a1b2c3d4e5f60718').withProviderId('eks-hybrid:///us-west-2/prod/mi-0a1b2c3d4e5f60718').build();

  it('fires for an EKS Hybrid node on CA 1.32, naming the node and the upgrade', () => {
    const w = withCa('1.32.1').add('nodes', hybrid());
    const fs = findingsOf(w.raw, 'ca-provider-id-unrecognized');
    expect(fs).toHaveLength(1);
    expect(fs[0]).toMatchObject({ severity: 'error', subject: { kind: 'Node', name: 'mi-0a1b2c3d4e5f60718' } });
    expect(fs[0].message).toContain('providerID "eks-hybrid:///us-west-2/prod/mi-0a1b2c3d4e5f60718"');
    expect(fs[0].remediation).toMatch(/^Upgrade CA to 1\.33 or newer/);
  });
  it('stays quiet on CA 1.33, which skips such nodes', () => {
    expect(findingsOf(withCa('1.33.0').add('nodes', hybrid()).raw, 'ca-provider-id-unrecognized')).toEqual([]);
  });
  it('stays quiet for a node without any providerID (only a warning in CA)', () => {
    const bare = node('ip-10-0-9-9.ec2.internal').build();
    delete bare.spec!.providerID;
    expect(findingsOf(withCa('1.30.4').add('nodes', bare).raw, 'ca-provider-id-unrecognized')).toEqual([]);
  });
});

describe('ca-priority-configmap-invalid', () => {
  function cmEvent(reason: string, message: string, at = '2026-01-05T11:56:00Z'): KubeEvent {
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `cluster-autoscaler-priority-expander.18${reason.length}a2b3c4d5e6f7`, namespace: 'kube-system' },
      involvedObject: { kind: 'ConfigMap', namespace: 'kube-system', name: 'cluster-autoscaler-priority-expander', apiVersion: 'v1' },
      reason,
      message,
      type: 'Warning',
      count: 12,
      firstTimestamp: '2026-01-05T10:00:00Z',
      lastTimestamp: at,
      source: { component: 'cluster-autoscaler' },
    };
  }
  const priorityCm = (data: Record<string, string>): ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cluster-autoscaler-priority-expander', namespace: 'kube-system' },
    data,
  });

  it('reports CA\'s PriorityConfigMapInvalid event with its text and age', () => {
    const w = withCa('1.32.1', ['--expander=priority']).add(
      'events',
      cmEvent('PriorityConfigMapInvalid', "Wrong configmap for priority expander, doesn't contain priorities key. Ignoring update."),
    );
    const fs = findingsOf(w.raw, 'ca-priority-configmap-invalid');
    expect(fs.map((f) => f.caReason)).toEqual(['PriorityConfigMapInvalid']);
    expect(fs[0].message).toContain('4m ago');
  });
  it('names each node group no regex matches, once', () => {
    const text = (g: string) =>
      `Priority expander: node group ${g} not found in priority expander configuration. The group won't be used.`;
    const w = withCa('1.32.1', ['--expander=priority']).add(
      'events',
      cmEvent('PriorityConfigMapNotMatchedGroup', text('prod-ondemand')),
      cmEvent('PriorityConfigMapNotMatchedGroup', text('prod-ondemand'), '2026-01-05T11:40:00Z'),
    );
    const fs = findingsOf(w.raw, 'ca-priority-configmap-invalid');
    expect(fs.map((f) => f.nodeGroup)).toEqual(['prod-ondemand']);
  });
  it('stays quiet without CA events about the ConfigMap', () => {
    expect(findingsOf(withCa('1.32.1', ['--expander=priority']).raw, 'ca-priority-configmap-invalid')).toEqual([]);
  });
  it('leaves a readable ConfigMap to priority-expander-config-invalid, which judges its content', () => {
    const w = withCa('1.32.1', ['--expander=priority'])
      .add('configMaps', priorityCm({ priority: '10:\n  - .*\n' }))
      .add('events', cmEvent('PriorityConfigMapInvalid', "Wrong configmap for priority expander, doesn't contain priorities key. Ignoring update."));
    expect(findingsOf(w.raw, 'ca-priority-configmap-invalid')).toEqual([]);
  });
});

describe('ca-graceful-degradation', () => {
  function statusEvent(reason: string, at: string): KubeEvent {
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `cluster-autoscaler-status.18${reason.length}f0e1d2c3b4a5`, namespace: 'kube-system' },
      involvedObject: { kind: 'ConfigMap', namespace: 'kube-system', name: 'cluster-autoscaler-status', apiVersion: 'v1' },
      reason,
      message:
        reason === 'GracefulDegradationStarted'
          ? 'Autoscaler is unable to handle the large amount of unschedulable pods. Consider reducing the rate of adding new pods, so autoscaler could auto recover.'
          : 'Autoscaler exited from GracefulDegradationMode and works normally.',
      type: reason === 'GracefulDegradationStarted' ? 'Warning' : 'Normal',
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: 'cluster-autoscaler' },
    };
  }
  it('fires while the newest event is GracefulDegradationStarted', () => {
    const w = withCa('1.37.0', ['--enable-graceful-degradation', '--pending-pods-batching-timeout=2m']).add(
      'events',
      statusEvent('GracefulDegradationStopped', '2026-01-05T11:30:00Z'),
      statusEvent('GracefulDegradationStarted', '2026-01-05T11:48:00Z'),
    );
    const fs = findingsOf(w.raw, 'ca-graceful-degradation');
    expect(fs).toHaveLength(1);
    expect(fs[0].message).toContain('12m ago');
    expect(fs[0].message).toContain('--pending-pods-batching-timeout=2m');
  });
  it('stays quiet once CA reported GracefulDegradationStopped', () => {
    const w = withCa('1.37.0', ['--enable-graceful-degradation']).add(
      'events',
      statusEvent('GracefulDegradationStarted', '2026-01-05T11:30:00Z'),
      statusEvent('GracefulDegradationStopped', '2026-01-05T11:48:00Z'),
    );
    expect(findingsOf(w.raw, 'ca-graceful-degradation')).toEqual([]);
  });
});
