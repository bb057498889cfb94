// Secrets on command lines (CA's container args, quoted as evidence and written by `snapshot`) are replaced at the
// data source: values of secret-like flags in both pflag forms, secret-like VAR=value words and URL passwords.
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/model/k8s.js';
import { isSecretName, scrubArgs, scrubCaArgsInDeployments } from '../../src/simulate/scrub-args.js';

describe('scrubArgs', () => {
  it('replaces the value of a secret-like flag written --flag=value', () => {
    expect(scrubArgs(['--password=hunter2', '--api-token=tok', '--client-secret=s', '--signing-key=k', '-token=x'])).toEqual([
      '--password=[redacted]',
      '--api-token=[redacted]',
      '--client-secret=[redacted]',
      '--signing-key=[redacted]',
      '-token=[redacted]',
    ]);
  });

  it('replaces the value of a secret-like flag written as two arguments, and keeps the next flag', () => {
    expect(scrubArgs(['--v=4', '--password', 'hunter2', '--cloud-provider=aws'])).toEqual([
      '--v=4',
      '--password',
      '[redacted]',
      '--cloud-provider=aws',
    ]);
    // a secret flag followed by a long flag has no value of its own: nothing to hide, and the next flag stays
    expect(scrubArgs(['--token', '--v=4'])).toEqual(['--token', '--v=4']);
    expect(scrubArgs(['--password'])).toEqual(['--password']);
  });

  it('replaces URL passwords and secret-like VAR=value words, inside a sh -c script too', () => {
    expect(scrubArgs(['--proxy=https://bob:s3cret@proxy.corp:3128', 'AWS_SECRET_ACCESS_KEY=abc', 'GITHUB_TOKEN=ghp'])).toEqual([
      '--proxy=https://bob:[redacted]@proxy.corp:3128',
      'AWS_SECRET_ACCESS_KEY=[redacted]',
      'GITHUB_TOKEN=[redacted]',
    ]);
    expect(scrubArgs(['sh', '-c', 'DB_PASSWORD=pw ./cluster-autoscaler --v=4  --password hunter2 --x=1'])).toEqual([
      'sh',
      '-c',
      'DB_PASSWORD=[redacted] ./cluster-autoscaler --v=4  --password [redacted] --x=1',
    ]);
  });

  it('leaves every Cluster Autoscaler flag and its value alone (verdicts depend on them)', () => {
    const ca = [
      '--v=4',
      '--stderrthreshold=info',
      '--cloud-provider=aws',
      '--skip-nodes-with-local-storage=false',
      '--expander=least-waste',
      '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/demo',
      '--balance-similar-node-groups',
      '--bypassed-scheduler-names=my-scheduler',
      '--clusterapi-cloud-config-authoritative',
      '--kubeconfig=/etc/kubernetes/kubeconfig',
      '--cloud-config',
      '/etc/aws/cloud.conf',
      '--nodes=1:10:demo-general',
      '--status-config-map-name=cluster-autoscaler-status',
    ];
    expect(scrubArgs(ca)).toEqual(ca);
  });

  it('names secrets by their words, not by substrings', () => {
    for (const n of ['password', 'db-password', 'DB_PASSWORD', 'token', 'api_token', 'secret', 'client-secret', 'api-key', 'key', 'credentials'])
      expect(isSecretName(n), n).toBe(true);
    for (const n of ['bypassed-scheduler-names', 'token-file', 'secret-name', 'keys', 'monkey', 'authoritative', 'tokenizer'])
      expect(isSecretName(n), n).toBe(false);
  });
});

describe('scrubCaArgsInDeployments', () => {
  it('scrubs the command and args of every container of a Deployment in place', () => {
    const d: Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'cluster-autoscaler', namespace: 'kube-system' },
      spec: {
        template: {
          metadata: {},
          spec: {
            containers: [
              {
                name: 'cluster-autoscaler',
                image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
                command: ['./cluster-autoscaler', '--password', 'hunter2'],
                args: ['--token=abc', '--v=4'],
              },
            ],
            initContainers: [{ name: 'init', image: 'busybox', args: ['--secret', 'x'] }],
          },
        },
      },
    } as Deployment;
    scrubCaArgsInDeployments([d]);
    const spec = d.spec!.template!.spec!;
    expect(spec.containers[0].command).toEqual(['./cluster-autoscaler', '--password', '[redacted]']);
    expect(spec.containers[0].args).toEqual(['--token=[redacted]', '--v=4']);
    expect(spec.initContainers![0].args).toEqual(['--secret', '[redacted]']);
  });
});

describe('buildCaConfig', () => {
  it('keeps secret values out of everything casdoctor may quote of CA, whatever the source (live, --from, --ca-args)', async () => {
    const { buildCaConfig } = await import('../../src/simulate/ca-config.js');
    const { caDeployment, DEFAULT_CA_ARGS } = await import('../builders/world.js');
    const ca = buildCaConfig({
      deployment: caDeployment([...DEFAULT_CA_ARGS, '--kube-api-content-type=application/json', '--password', 'hunter2']),
      overrideArgs: ['--token=s3cr3t-tok'],
    });
    expect(ca.deploymentArgs).toContain('[redacted]');
    expect(JSON.stringify(ca)).not.toContain('hunter2');
    expect(JSON.stringify(ca)).not.toContain('s3cr3t-tok');
  });
});
