// Which CA release has which flag: each row was read from config/flags/flags.go (1.34+) or main.go at the
// kubernetes/autoscaler tag cluster-autoscaler-1.<since>.0 (1.27.1 for 1.27) and the cluster-autoscaler-release-1.37 branch.
import { describe, expect, it } from 'vitest';
import { buildCaConfig, flagVersions } from '../../src/simulate/ca-config.js';
import { caDeployment, DEFAULT_CA_ARGS } from '../builders/world.js';

function configFor(version: string, ...extra: string[]) {
  return buildCaConfig({
    deployment: caDeployment(
      [...DEFAULT_CA_ARGS, ...extra],
      `registry.k8s.io/autoscaling/cluster-autoscaler:v${version}`,
    ),
  });
}

// [flag as written, first minor that has it, the minor before it]
const ADDED: Array<[string, number]> = [
  ['--salvo-scale-up', 36],
  ['--salvo-scale-up-budget=30s', 36],
  ['--capacity-quotas-enabled', 36],
  ['--fastpath-binpacking-enabled', 36],
  ['--capacity-buffer-pod-dry-run-enabled=false', 36],
  ['--startup-taint-prefix=example.com/boot-', 36],
  ['--node-removal-latency-tracking-enabled', 35],
  ['--max-node-skip-eval-time-tracker-enabled', 35],
  ['--max-node-startup-time=20m', 35],
  ['--predicate-parallelism=8', 35],
  ['--enable-csi-node-aware-scheduling', 35],
  ['--enable-graceful-degradation', 37],
  ['--pending-pods-batching-timeout=2m', 37],
  ['--scheduler-verbosity=2', 37],
  ['--capacity-buffer-controller-enabled', 34],
  ['--cluster-snapshot-parallelism=8', 33],
  ['--bypassed-scheduler-names=batch-scheduler', 29],
  ['--scale-down-unready-enabled=false', 27],
  ['--skip-nodes-with-custom-controller-pods=false', 27],
  ['--max-scale-down-parallelism=5', 25],
];

describe('flags by CA version', () => {
  it.each(ADDED)('accepts %s from 1.%i and calls it too new one minor earlier', (flag, since) => {
    const name = flag.replace(/=.*$/, '');
    const current = configFor(`1.${since}.0`, flag);
    expect(current.unknownFlags).toEqual([]);
    expect(current.errors).toEqual([]);
    const older = configFor(`1.${since - 1}.3`, flag);
    expect(older.unknownFlags).toEqual([name]);
    expect(older.versionedFlags).toEqual([{ flag: name, since }]);
    expect(older.errors).toContain(`unknown flag: ${name} (not in cluster-autoscaler 1.${since - 1})`);
  });

  it.each([
    ['--max-empty-bulk-delete=20', 33],
    ['--parallel-drain', 32],
    ['--node-autoprovisioning-enabled', 33],
    ['--max-autoprovisioned-node-group-count=15', 33],
    ['--lease-resource-name=ca-lease', 33],
  ])('knows %s was removed in 1.%i', (flag, until) => {
    const name = flag.replace(/=.*$/, '');
    expect(configFor(`1.${until - 1}.1`, flag).unknownFlags).toEqual([]);
    const newer = configFor(`1.${until}.0`, flag);
    expect(newer.versionedFlags).toEqual([{ flag: name, until }]);
  });

  it('reads the 1.36 and 1.37 flags with their defaults', () => {
    const defaults = configFor('1.36.1').flags;
    expect(defaults.salvoScaleUp).toMatchObject({ value: false, origin: 'default', supported: true });
    expect(defaults.salvoScaleUpBudget.value).toBe(60_000);
    expect(defaults.capacityBufferPodDryRunEnabled.value).toBe(true);
    expect(defaults.enableGracefulDegradation.supported).toBe(false);
    const set = configFor('1.37.0', '--salvo-scale-up', '--salvo-scale-up-budget=90s', '--pending-pods-batching-timeout=1m')
      .flags;
    expect(set.salvoScaleUp).toMatchObject({ value: true, origin: 'deployment' });
    expect(set.salvoScaleUpBudget.value).toBe(90_000);
    expect(set.pendingPodsBatchingTimeout.value).toBe(60_000);
  });

  it('keeps a flag no CA release has as plainly unknown, without a version', () => {
    const c = configFor('1.36.0', '--salvo-scaleup');
    expect(c.unknownFlags).toEqual(['--salvo-scaleup']);
    expect(c.versionedFlags).toEqual([]);
    expect(flagVersions('salvo-scaleup')).toBeUndefined();
    expect(flagVersions('salvo-scale-up')).toEqual({ since: 36, until: undefined });
  });

  it('only warns about a version-specific flag when the image tag is not a plain vX.Y.Z', () => {
    const c = buildCaConfig({
      deployment: caDeployment(
        [...DEFAULT_CA_ARGS, '--max-empty-bulk-delete=20'],
        'registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.0-eks-1',
      ),
    });
    expect(c.unknownFlags).toEqual([]);
    // an unrecognised tag assumes the newest known minor (1.37), which no longer has the flag
    expect(c.warnings).toContain('unknown flag: --max-empty-bulk-delete (not in cluster-autoscaler 1.37)');
  });
});
