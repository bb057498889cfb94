// The node-group provider seam under CA's AWS provider: Analysis picks the provider from CA's flags, builds groups and
// templates through it, and checks about Auto Scaling groups are not applicable under another provider.
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../../../src/checks/index.js';
import { providerNotApplicable } from '../../../../src/checks/define-check.js';
import { runChecks } from '../../../../src/checks/lib/engine.js';
import { isIncompleteSkip, NOT_APPLICABLE } from '../../../../src/model/findings.js';
import type { ExternalGrpcNodeGroup } from '../../../../src/model/node-group.js';
import { skippedLines } from '../../../../src/report/findings-text.js';
import { PLAIN } from '../../../../src/report/style.js';
import { Analysis } from '../../../../src/simulate/analysis.js';
import { awsProvider } from '../../../../src/providers/aws/index.js';
import { externalGrpcProvider } from '../../../../src/providers/externalgrpc/index.js';
import { providerFor } from '../../../../src/providers/index.js';
import type { NodeGroupProvider } from '../../../../src/providers/types.js';
import { buildTemplateNode } from '../../../../src/simulate/template-node.js';
import { STATIC_TYPES } from '../../../checks/harness.js';
import { asg } from '../../../builders/aws.js';
import { DEFAULT_CA_ARGS, NOW, world } from '../../../builders/world.js';

const DETAIL = 'CA runs with --cloud-provider=externalgrpc; this check is about AWS Auto Scaling groups';

function analysis(raw = world().raw): Analysis {
  return new Analysis(raw, { now: NOW, staticInstanceTypes: STATIC_TYPES });
}

/** The Analysis as it would be under another provider: the AWS behaviour with another id. */
function underExternalGrpc(a: Analysis, extra: Partial<NodeGroupProvider> = {}): Analysis {
  const fake: NodeGroupProvider = { ...awsProvider, id: 'externalgrpc', groupNoun: 'externalgrpc node group', groupKinds: [], ...extra };
  Object.defineProperty(a, 'provider', { value: fake });
  return a;
}

const grpcGroup: ExternalGrpcNodeGroup = {
  provider: 'externalgrpc',
  name: 'pool-a',
  discovered: true,
  via: 'provider',
  minSize: 0,
  maxSize: 5,
  targetSize: 0,
  zones: [],
  instanceIds: [],
  nodes: [],
  unregisteredInstances: [],
  placeholderCount: 0,
  grpc: { id: 'pool-a', minSize: 0, maxSize: 5, targetSize: 0, instanceParameter: '', instances: [] },
};

describe('provider selection', () => {
  it('picks the AWS provider for --cloud-provider=aws and builds every group as an Auto Scaling group', () => {
    const a = analysis();
    expect(a.provider.id).toBe('aws');
    expect(a.nodeGroups.map((g) => [g.provider, g.name])).toEqual([['aws', 'prod-general']]);
    expect(a.asgGroups).toEqual(a.nodeGroups);
  });

  it('falls back to the AWS provider when no CA Deployment is found', () => {
    const a = analysis(world({ withCa: false }).raw);
    expect(a.ca.found).toBe(false);
    expect(providerFor(a.ca, a.raw).id).toBe('aws');
  });

  it('simulates an unmodelled --cloud-provider value as AWS', () => {
    const args = DEFAULT_CA_ARGS.map((x) => (x === '--cloud-provider=aws' ? '--cloud-provider=gce' : x));
    expect(analysis(world({ caArgs: args }).raw).provider.id).toBe('aws');
  });
});

describe('checks about Auto Scaling groups under another provider', () => {
  it('gates a providers: [aws] check with reason not-applicable and names the provider', () => {
    expect(providerNotApplicable({ providers: ['aws'] }, 'aws')).toBeUndefined();
    expect(providerNotApplicable({}, 'externalgrpc')).toBeUndefined();
    expect(providerNotApplicable({ providers: ['aws'] }, 'externalgrpc')).toEqual({ reason: NOT_APPLICABLE, detail: DETAIL });
  });

  it('runs none of the AWS-only checks of asg-audit under another provider and lists none of them, and all of them under AWS', () => {
    const awsOnly = CHECKS.filter((c) => c.meta.commands.includes('asg-audit') && c.meta.providers?.includes('aws'))
      .map((c) => c.meta.id)
      .sort();
    expect(awsOnly).toContain('launch-template-drift');
    expect(awsOnly).toContain('iam-permission-denied');

    const onAws = runChecks(CHECKS, analysis(), 'asg-audit');
    expect(onAws.skipped.filter((s) => s.reason === NOT_APPLICABLE)).toEqual([]);
    // under AWS every AWS-only check ran: each either reported, was skipped for missing data, or found nothing
    expect(providerNotApplicable(CHECKS.find((c) => c.meta.id === 'launch-template-drift')!.meta, 'aws')).toBeUndefined();

    const other = runChecks(CHECKS, underExternalGrpc(analysis()), 'asg-audit');
    expect(other.skipped.filter((s) => awsOnly.includes(s.checkId))).toEqual([]);
    expect(other.findings.some((f) => awsOnly.includes(f.checkId))).toBe(false);
    // the gate itself still says why, for the catalogue and preflight
    expect(providerNotApplicable(CHECKS.find((c) => c.meta.id === 'launch-template-drift')!.meta, 'externalgrpc')?.detail).toBe(DETAIL);
  });

  it('does not skip a check for want of ASGs when the groups come from another provider', () => {
    const w = world();
    w.raw.provided.delete('autoScalingGroups');
    expect(analysis(w.raw).missingData(['autoScalingGroups'])?.reason).toBe('not-provided');
    expect(underExternalGrpc(analysis(w.raw)).missingData(['autoScalingGroups'])).toBeUndefined();
  });

  it('prints not-applicable checks on their own line and does not count them as incomplete', () => {
    const skipped = [
      { checkId: 'iam-permission-denied', reason: 'not-provided', detail: 'no IAM evaluation in the input' },
      { checkId: 'launch-template-drift', reason: NOT_APPLICABLE, detail: DETAIL },
      { checkId: 'mixed-instances-weighted', reason: NOT_APPLICABLE, detail: DETAIL },
    ];
    expect(skippedLines(skipped, PLAIN)).toEqual([
      'skipped checks (1): iam-permission-denied (no IAM evaluation in the input)',
      `not applicable (2): launch-template-drift, mixed-instances-weighted (${DETAIL})`,
    ]);
    expect(skipped.map(isIncompleteSkip)).toEqual([true, false, false]);
  });
});

describe('templates and options through the provider', () => {
  it('merges the ASG template’s extra resources into a real node’s template only when the provider says CA does', () => {
    const w = world();
    (w.raw.autoScalingGroups[0].Tags ??= []).push(
      ...asg('x').withTag('k8s.io/cluster-autoscaler/node-template/resources/example.com/fpga', '2').build().Tags!,
    );
    const a = analysis(w.raw);
    const [group] = a.nodeGroups;
    const merged = a.template(group);
    expect(merged.source).toBe('node');
    expect(merged.node?.status?.allocatable?.['example.com/fpga']).toBe('2');
    const plain = buildTemplateNode(group, { ...a.templateContext, provider: { ...awsProvider, mergesScratchResourcesIntoRealNodes: false } });
    expect(plain.source).toBe('node');
    expect(plain.node?.status?.allocatable?.['example.com/fpga']).toBeUndefined();
  });

  it('asks the provider for the scratch template and says whose template CA falls back to', () => {
    const a = analysis();
    const t = buildTemplateNode(grpcGroup, {
      ...a.templateContext,
      provider: {
        ...awsProvider,
        groupNoun: 'externalgrpc node group',
        scratchTemplate: () => ({ source: 'provider', node: { metadata: { name: 'template-node-for-pool-a' } }, pods: [], notes: [] }),
      },
    });
    expect(t.source).toBe('provider');
    expect(t.notes[0]).toMatch(/otherwise this externalgrpc node group template$/);
  });

  it('builds no AWS scratch template and reads no ASG tags for a group of another provider', () => {
    const a = analysis();
    expect(awsProvider.scratchTemplate(grpcGroup, a.templateContext)).toMatchObject({ source: 'none', reason: 'pool-a is not an Auto Scaling group' });
    const opts = awsProvider.scaleDownOptions(grpcGroup, a.ca);
    expect(opts).toEqual(awsProvider.scaleDownOptions(undefined, a.ca));
    expect(opts.thresholdSource).toBe('flag');
  });

  it('asks the provider for the cluster names: AWS reads the discovery tags and --cluster-name, externalgrpc only the flag', () => {
    const a = analysis(world({ caArgs: [...DEFAULT_CA_ARGS, '--cluster-name=blue'] }).raw);
    expect([...a.clusterNames()].sort()).toEqual(['blue', 'prod']);
    expect([...externalGrpcProvider.clusterNames(a.providerContext, a.nodeGroupsResult)]).toEqual(['blue']);
    expect([...underExternalGrpc(analysis(), { clusterNames: () => new Set(['from-provider']) }).clusterNames()]).toEqual(['from-provider']);
  });

  it('reads the per-ASG scale-down options from the ASG tags under AWS', () => {
    const w = world();
    (w.raw.autoScalingGroups[0].Tags ??= []).push(
      ...asg('x').withTag('k8s.io/cluster-autoscaler/node-template/autoscaling-options/scaledownutilizationthreshold', '0.3').build().Tags!,
    );
    const a = analysis(w.raw);
    const opts = a.provider.scaleDownOptions(a.nodeGroups[0], a.ca);
    expect(opts).toMatchObject({ threshold: 0.3, thresholdSource: 'asg-tag' });
  });
});
