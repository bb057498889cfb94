import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/model/k8s.js';
import {
  buildCaConfig,
  caContainerArgs,
  findCaDeployment,
  parseAutoDiscoverySpecs,
  parseCaArgs,
  parseCaVersion,
  parseNodeGroupSpec,
} from '../../src/simulate/ca-config.js';

/** A cluster-autoscaler Deployment as `kubectl get deploy -o json` prints the Helm chart's. */
function caDeployment(
  opts: { image?: string; command?: string[]; args?: string[]; namespace?: string; name?: string } = {},
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: opts.name ?? 'cluster-autoscaler-aws-cluster-autoscaler',
      namespace: opts.namespace ?? 'kube-system',
      uid: '3f1c2b9a-5d4e-4b1f-8a2c-0e9d8c7b6a51',
      labels: {
        'app.kubernetes.io/instance': 'cluster-autoscaler',
        'app.kubernetes.io/name': 'aws-cluster-autoscaler',
      },
      annotations: { 'deployment.kubernetes.io/revision': '3' },
      creationTimestamp: '2026-01-05T09:30:00Z',
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { 'app.kubernetes.io/name': 'aws-cluster-autoscaler' } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'aws-cluster-autoscaler' } },
        spec: {
          serviceAccountName: 'cluster-autoscaler',
          priorityClassName: 'system-cluster-critical',
          containers: [
            {
              name: 'aws-cluster-autoscaler',
              image: opts.image ?? 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
              ...(opts.command ? { command: opts.command } : {}),
              ...(opts.args ? { args: opts.args } : {}),
              env: [{ name: 'AWS_REGION', value: 'us-east-1' }],
              ports: [{ containerPort: 8085, protocol: 'TCP' }],
              resources: { requests: { cpu: '100m', memory: '300Mi' }, limits: { memory: '600Mi' } },
            },
          ],
        },
      },
    },
    status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
  };
}

const helmCommand = (...flags: string[]) => [
  './cluster-autoscaler',
  '--cloud-provider=aws',
  '--namespace=kube-system',
  ...flags,
];

describe('parseCaVersion', () => {
  it.each([
    [
      'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
      { version: 'v1.32.1', minor: 32, known: true },
    ],
    [
      'registry.k8s.io/autoscaling/cluster-autoscaler:v1.29.0',
      { version: 'v1.29.0', minor: 29, known: true },
    ],
    ['localhost:5000/cluster-autoscaler:1.33.2', { version: '1.33.2', minor: 33, known: true }],
    [
      'registry.k8s.io/autoscaling/cluster-autoscaler:v1.36.1@sha256:0123abcd',
      { version: 'v1.36.1', minor: 36, known: true },
    ],
    [
      'example.com/cluster-autoscaler:v1.30.0-eks-abc',
      { version: 'v1.30.0-eks-abc', minor: 37, known: false },
    ],
    ['registry.k8s.io/autoscaling/cluster-autoscaler@sha256:9f8e7d6c5b4a', { minor: 37, known: false }],
    ['registry.k8s.io/autoscaling/cluster-autoscaler', { minor: 37, known: false }],
    ['registry.k8s.io/autoscaling/cluster-autoscaler:latest', { version: 'latest', minor: 37, known: false }],
  ])('reads %s as %o', (image, expected) => {
    expect(parseCaVersion(image)).toEqual(expected);
  });
});

describe('findCaDeployment and caContainerArgs', () => {
  it('finds the cluster-autoscaler container in any namespace, skipping other deployments', () => {
    const other: Deployment = {
      ...caDeployment({ image: 'nginx:1.27', name: 'web', namespace: 'default' }),
    };
    const ca = caDeployment({ namespace: 'autoscaling', command: helmCommand() });
    const found = findCaDeployment([other, ca]);
    expect(found?.deployment.metadata.namespace).toBe('autoscaling');
    expect(found?.container.name).toBe('aws-cluster-autoscaler');
  });

  it('returns undefined when no container image mentions cluster-autoscaler', () => {
    expect(findCaDeployment([caDeployment({ image: 'nginx:1.27' })])).toBeUndefined();
  });

  it.each([
    [
      'the command tail after ./cluster-autoscaler, then args',
      { command: ['./cluster-autoscaler', '--v=4'], args: ['--scan-interval=20s'] },
      ['--v=4', '--scan-interval=20s'],
    ],
    ['args alone when there is no command', { args: ['--cloud-provider=aws'] }, ['--cloud-provider=aws']],
    [
      'the words after the binary in a shell -c script',
      { command: ['/bin/sh', '-c', './cluster-autoscaler --v=2 --expander=priority'] },
      ['--v=2', '--expander=priority'],
    ],
    [
      'an absolute binary path',
      { command: ['/usr/local/bin/cluster-autoscaler', '--nodes=1:3:ng'] },
      ['--nodes=1:3:ng'],
    ],
  ])('takes %s', (_name, container, expected) => {
    expect(caContainerArgs({ name: 'ca', ...container })).toEqual(expected);
  });
});

describe('parseCaArgs follows Go pflag', () => {
  it.each([
    ['--flag=value', ['--scan-interval=20s'], { 'scan-interval': ['20s'] }],
    ['--flag value', ['--scan-interval', '20s'], { 'scan-interval': ['20s'] }],
    [
      'a value that starts with a dash',
      ['--expendable-pods-priority-cutoff', '-5'],
      { 'expendable-pods-priority-cutoff': ['-5'] },
    ],
    ['-v=4', ['-v=4'], { v: ['4'] }],
    ['-v 4', ['-v', '4'], { v: ['4'] }],
    ['-v4', ['-v4'], { v: ['4'] }],
    ['--v=4', ['--v=4'], { v: ['4'] }],
    ['a bare boolean', ['--balance-similar-node-groups'], { 'balance-similar-node-groups': ['true'] }],
    ['--bool=false', ['--scale-down-enabled=false'], { 'scale-down-enabled': ['false'] }],
    [
      'underscores normalised to dashes',
      ['--skip_nodes_with_local_storage=false'],
      { 'skip-nodes-with-local-storage': ['false'] },
    ],
    [
      'repeated flags accumulating',
      ['--nodes=1:3:a', '--nodes', '0:5:b', '--startup-taint=x', '--startup-taint=y'],
      { nodes: ['1:3:a', '0:5:b'], 'startup-taint': ['x', 'y'] },
    ],
  ])('parses %s', (_name, args, values) => {
    const parsed = parseCaArgs(args);
    expect(parsed.values).toEqual(values);
    expect(parsed.errors).toEqual([]);
  });

  it('does not let a boolean flag take the next word: `--scale-down-enabled false` leaves false positional', () => {
    const parsed = parseCaArgs(['--scale-down-enabled', 'false']);
    expect(parsed.values).toEqual({ 'scale-down-enabled': ['true'] });
    expect(parsed.positional).toEqual(['false']);
  });

  it('stops parsing flags after --', () => {
    const parsed = parseCaArgs(['--v=2', '--', '--nodes=1:2:x']);
    expect(parsed.values).toEqual({ v: ['2'] });
    expect(parsed.positional).toEqual(['--nodes=1:2:x']);
  });

  it('reports unknown long flags, unknown shorthands and a missing argument as pflag does', () => {
    const parsed = parseCaArgs(['--no-such-flag=1', '-scan-interval=10s', '--nodes']);
    expect(parsed.unknownFlags).toEqual(['--no-such-flag', '-scan-interval']);
    expect(parsed.errors).toEqual([
      'unknown flag: --no-such-flag',
      "unknown shorthand flag: 's' in -scan-interval=10s",
      'flag needs an argument: --nodes',
    ]);
  });

  it('accepts flags CA has that casdoctor does not interpret', () => {
    const parsed = parseCaArgs([
      '--kubeconfig=/etc/kube',
      '--leader-elect',
      '--logtostderr',
      '--stderrthreshold=info',
    ]);
    expect(parsed.unknownFlags).toEqual([]);
    expect(parsed.values['leader-elect']).toEqual(['true']);
  });
});

describe('buildCaConfig defaults by CA version', () => {
  const cfg = (image: string) =>
    buildCaConfig({ deployment: caDeployment({ image, command: helmCommand() }) });
  const HOUR = 3_600_000;

  it.each([
    [
      'v1.29.0',
      {
        expander: 'random',
        bsp: undefined,
        bspSupported: false,
        cordon: false,
        frequent: false,
        maxEmpty: 10,
      },
    ],
    [
      'v1.32.1',
      {
        expander: 'random',
        bsp: undefined,
        bspSupported: false,
        cordon: false,
        frequent: false,
        maxEmpty: 10,
      },
    ],
    [
      'v1.33.0',
      {
        expander: 'least-waste',
        bsp: HOUR,
        bspSupported: true,
        cordon: false,
        frequent: false,
        maxEmpty: undefined,
      },
    ],
    [
      'v1.36.1',
      {
        expander: 'least-waste',
        bsp: HOUR,
        bspSupported: true,
        cordon: true,
        frequent: true,
        maxEmpty: undefined,
      },
    ],
  ])('CA %s', (tag, want) => {
    const c = cfg(`registry.k8s.io/autoscaling/cluster-autoscaler:${tag}`);
    expect(c.found).toBe(true);
    expect(c.version.known).toBe(true);
    expect(c.flags.expander).toMatchObject({ value: want.expander, origin: 'default' });
    expect(c.flags.blockingSystemPodDistruptionTimeout.value).toBe(want.bsp);
    expect(c.flags.blockingSystemPodDistruptionTimeout.supported).toBe(want.bspSupported);
    expect(c.flags.cordonNodeBeforeTerminating.value).toBe(want.cordon);
    expect(c.flags.frequentLoopsEnabled.value).toBe(want.frequent);
    expect(c.flags.maxEmptyBulkDelete.value).toBe(want.maxEmpty);
    expect(c.flags.scaleDownSimulationTimeout.value).toBe(30_000);
    expect(c.flags.nodeInfoCacheExpireTime.value).toBe(87_600 * HOUR);
  });

  it('enables DRA from 1.32 (off) and locks it on from 1.35', () => {
    expect(cfg('x/cluster-autoscaler:v1.31.0').flags.enableDynamicResourceAllocation).toMatchObject({
      value: false,
      supported: false,
    });
    expect(cfg('x/cluster-autoscaler:v1.32.0').flags.enableDynamicResourceAllocation).toMatchObject({
      value: false,
      supported: true,
    });
    expect(cfg('x/cluster-autoscaler:v1.35.0').flags.enableDynamicResourceAllocation.value).toBe(true);
  });

  it('uses the newest known defaults for an unrecognised tag and says so', () => {
    const c = cfg('123456789012.dkr.ecr.us-east-1.amazonaws.com/cluster-autoscaler:v1.30.0-eks-abc');
    expect(c.version).toMatchObject({ minor: 37, known: false, version: 'v1.30.0-eks-abc' });
    expect(c.flags.expander.value).toBe('least-waste');
    expect(c.flags.scaleFromUnschedulable.supported).toBe(true);
    expect(c.warnings[0]).toMatch(/CA version not recognised .* assuming the defaults of CA 1\.37/);
  });

  it('reports found: false with newest defaults when there is no deployment', () => {
    const c = buildCaConfig({});
    expect(c.found).toBe(false);
    expect(c.version).toEqual({ minor: 37, known: false });
    expect(c.flags.cloudProvider).toMatchObject({ value: 'gce', origin: 'default' });
    expect(c.flags.namespace.value).toBe('kube-system');
    expect(c.flags.cordonNodeBeforeTerminating.value).toBe(true);
  });
});

describe('buildCaConfig values and origins', () => {
  it('records default, deployment and override origins, with overrides applied last', () => {
    const c = buildCaConfig({
      deployment: caDeployment({
        command: helmCommand(
          '--scale-down-unneeded-time=5m',
          '--expander=priority',
          '--skip-nodes-with-local-storage=false',
        ),
      }),
      overrideArgs: ['--expander=most-pods', '--scale-down-delay-after-add=2m30s'],
    });
    expect(c.flags.scaleDownUnneededTime).toMatchObject({
      value: 300_000,
      origin: 'deployment',
      raw: ['5m'],
    });
    expect(c.flags.expander).toMatchObject({ value: 'most-pods', origin: 'override' });
    expect(c.flags.scaleDownDelayAfterAdd).toMatchObject({ value: 150_000, origin: 'override' });
    expect(c.flags.skipNodesWithLocalStorage).toMatchObject({ value: false, origin: 'deployment' });
    expect(c.flags.scaleDownUtilizationThreshold).toMatchObject({ value: 0.5, origin: 'default' });
    expect(c.flags.cloudProvider).toMatchObject({ value: 'aws', origin: 'deployment' });
  });

  it('lets an override of a repeatable flag replace the deployment values', () => {
    const c = buildCaConfig({
      deployment: caDeployment({ command: helmCommand('--nodes=1:3:a', '--nodes=1:3:b') }),
      overrideArgs: ['--nodes=0:9:c'],
    });
    expect(c.flags.nodes).toMatchObject({ value: ['0:9:c'], origin: 'override' });
    expect(c.nodeGroupSpecs).toEqual([{ raw: '0:9:c', min: 0, max: 9, name: 'c' }]);
  });

  it('keeps the last value of a repeated scalar flag', () => {
    const c = buildCaConfig({
      deployment: caDeployment({ command: helmCommand('--scan-interval=10s', '--scan-interval=1m') }),
    });
    expect(c.flags.scanInterval.value).toBe(60_000);
  });

  it('parses --cores-total and --memory-total (GiB) as min:max', () => {
    const c = buildCaConfig({
      deployment: caDeployment({ command: helmCommand('--cores-total=4:512', '--memory-total=16:2048') }),
    });
    expect(c.flags.coresTotal.value).toEqual({ min: 4, max: 512 });
    expect(c.flags.memoryTotal.value).toEqual({ min: 16, max: 2048 });
  });

  it.each([
    ['--scan-interval=10', 'invalid argument "10" for "--scan-interval" flag: time: invalid duration "10"'],
    [
      '--scale-down-enabled=yes',
      'invalid argument "yes" for "--scale-down-enabled" flag: strconv.ParseBool: parsing "yes": invalid syntax',
    ],
    [
      '--max-nodes-total=ten',
      'invalid argument "ten" for "--max-nodes-total" flag: strconv.ParseInt: parsing "ten": invalid syntax',
    ],
    ['--cores-total=100', 'Failed to parse flags: wrong nodes configuration: 100'],
    ['--memory-total=10:5', 'Failed to parse flags: max size must be greater or equal to min size'],
    ['--gpu-total=nvidia-t4:0', 'Failed to parse flags: incorrect gpu limit specification: nvidia-t4:0'],
  ])('collects the error for %s instead of throwing', (flag, error) => {
    const c = buildCaConfig({ deployment: caDeployment({ command: helmCommand(flag) }) });
    expect(c.errors).toContain(error);
  });

  it('parses --gpu-total limits', () => {
    const c = buildCaConfig({
      deployment: caDeployment({ command: helmCommand('--gpu-total=nvidia-tesla-t4:0:8') }),
    });
    expect(c.gpuLimits).toEqual([{ type: 'nvidia-tesla-t4', min: 0, max: 8 }]);
  });

  it('flags a flag the detected version does not have as unknown', () => {
    const c = buildCaConfig({
      deployment: caDeployment({
        image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
        command: helmCommand('--blocking-system-pod-distruption-timeout=30m', '--max-empty-bulk-delete=20'),
      }),
    });
    expect(c.unknownFlags).toEqual(['--blocking-system-pod-distruption-timeout']);
    expect(c.errors).toContain(
      'unknown flag: --blocking-system-pod-distruption-timeout (not in cluster-autoscaler 1.32)',
    );
    expect(c.flags.maxEmptyBulkDelete.value).toBe(20);
  });

  it('rejects --drain-priority-config together with --max-graceful-termination-sec', () => {
    const c = buildCaConfig({
      deployment: caDeployment({
        command: helmCommand('--drain-priority-config=10000:20,0:60', '--max-graceful-termination-sec=300'),
      }),
    });
    expect(c.errors).toContain(
      'Invalid configuration, could not use --drain-priority-config together with --max-graceful-termination-sec',
    );
  });

  it('splits comma-separated scheduler names (pflag StringSlice) and accumulates repeats', () => {
    const c = buildCaConfig({
      deployment: caDeployment({
        command: helmCommand('--bypassed-scheduler-names=a,b', '--bypassed-scheduler-names=c'),
      }),
    });
    expect(c.flags.bypassedSchedulerNames.value).toEqual(['a', 'b', 'c']);
  });

  it('collects the repeatable taint flags and auto-discovery specs', () => {
    const c = buildCaConfig({
      deployment: caDeployment({
        command: helmCommand(
          '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod',
          '--startup-taint=node.cilium.io/agent-not-ready',
          '--status-taint=example.com/degraded',
          '--ignore-taint=example.com/legacy',
          '--force-ds=true',
        ),
      }),
    });
    expect(c.flags.startupTaint.value).toEqual(['node.cilium.io/agent-not-ready']);
    expect(c.flags.statusTaint.value).toEqual(['example.com/degraded']);
    expect(c.flags.ignoreTaint.value).toEqual(['example.com/legacy']);
    expect(c.flags.forceDs.value).toBe(true);
    expect(c.autoDiscovery.tags).toEqual({
      'k8s.io/cluster-autoscaler/enabled': undefined,
      'k8s.io/cluster-autoscaler/prod': undefined,
    });
  });

  it('warns when --nodes and auto-discovery are combined', () => {
    const c = buildCaConfig({
      deployment: caDeployment({
        command: helmCommand('--nodes=1:3:a', '--node-group-auto-discovery=asg:tag=x'),
      }),
    });
    expect(c.warnings).toContain(
      'both --nodes and --node-group-auto-discovery are set; the AWS README advises against it',
    );
  });
});

describe('parseNodeGroupSpec (--nodes)', () => {
  const p = 'failed to parse node group spec: failed to parse node group spec: ';
  it.each([
    ['1:10:my-asg', { raw: '1:10:my-asg', min: 1, max: 10, name: 'my-asg' }],
    ['0:3:asg:with:colons', { raw: '0:3:asg:with:colons', min: 0, max: 3, name: 'asg:with:colons' }],
    ['1:10', { error: `${p}wrong nodes configuration: 1:10` }],
    ['a:10:x', { error: `${p}failed to set min size: a, expected integer` }],
    ['1:b:x', { error: `${p}failed to set max size: b, expected integer` }],
    ['-1:3:x', { error: `${p}invalid node group spec: min size must be >= 0` }],
    ['5:3:x', { error: `${p}invalid node group spec: max size must be greater or equal to min size` }],
    ['1:3:', { error: `${p}invalid node group spec: name must not be blank` }],
  ])('parses %s', (spec, expected) => {
    expect(parseNodeGroupSpec(spec)).toEqual(expected);
  });

  it('collects invalid --nodes specs in config errors and keeps the valid ones', () => {
    const c = buildCaConfig({
      deployment: caDeployment({ command: helmCommand('--nodes=1:3:good', '--nodes=3:1:bad') }),
    });
    expect(c.nodeGroupSpecs.map((s) => s.name)).toEqual(['good']);
    expect(c.errors).toContain(`${p}invalid node group spec: max size must be greater or equal to min size`);
  });
});

describe('parseAutoDiscoverySpecs', () => {
  it.each([
    [
      'key only means the tag must exist',
      ['asg:tag=k8s.io/cluster-autoscaler/enabled'],
      { 'k8s.io/cluster-autoscaler/enabled': undefined },
    ],
    ['key=value means that exact value', ['asg:tag=team=payments'], { team: 'payments' }],
    ['an empty value after = is an existence match, as CA stores ""', ['asg:tag=team='], { team: undefined }],
    ['a value may contain =', ['asg:tag=expr=a=b'], { expr: 'a=b' }],
    [
      'several flags are merged into one map (ANDed)',
      ['asg:tag=k8s.io/cluster-autoscaler/enabled', 'asg:tag=k8s.io/cluster-autoscaler/prod'],
      { 'k8s.io/cluster-autoscaler/enabled': undefined, 'k8s.io/cluster-autoscaler/prod': undefined },
    ],
    [
      'the later value wins for the same key',
      ['asg:tag=env=staging,team=a', 'asg:tag=env=prod'],
      { env: 'prod', team: 'a' },
    ],
  ])('%s', (_name, specs, tags) => {
    const r = parseAutoDiscoverySpecs(specs);
    expect(r.errors).toEqual([]);
    expect(r.tags).toEqual(tags);
  });

  it.each([
    [
      'no colon',
      'asg',
      'invalid node group auto discovery spec specified via --node-group-auto-discovery: asg',
    ],
    ['another discoverer', 'mig:namePrefix=x', 'unsupported discoverer specified: mig'],
    ['a parameter without =', 'asg:tag', 'invalid key=value pair [tag]'],
    [
      'another parameter key',
      'asg:label=foo',
      'unsupported parameter key "label" is specified for discoverer "asg". The only supported key is "tag"',
    ],
    ['no tag value', 'asg:tag=', 'tag value not supplied'],
  ])('reports CA’s error for %s', (_name, spec, error) => {
    const r = parseAutoDiscoverySpecs([spec, 'asg:tag=ok']);
    expect(r.errors).toEqual([error]);
    expect(r.tags).toEqual({ ok: undefined });
    expect(r.specs[0].error).toBe(error);
  });
});
