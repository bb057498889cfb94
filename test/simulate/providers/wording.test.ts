// The provider seam's wording and remediation builders: AWS keeps the exact aws CLI commands reports printed before the
// seam; externalgrpc says how its groups really change (server/server.go :8080 API; the ConfigMap only with the
// provider stopped, node_group.go:203-204), quoted for a POSIX shell.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadOffline } from '../../../src/gather/offline.js';
import type { NodeGroup } from '../../../src/model/node-group.js';
import type { RawInputs } from '../../../src/model/snapshot.js';
import { Analysis } from '../../../src/simulate/analysis.js';
import { awsProvider } from '../../../src/providers/aws/index.js';
import { remedyText } from '../../../src/providers/types.js';
import { STATIC_TYPES } from '../../checks/harness.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const NOW = new Date('2026-11-21T10:00:00Z');
let grpc: Analysis;
let raw: RawInputs;

beforeAll(async () => {
  raw = await loadOffline([join(ROOT, 'examples', 'externalgrpc')]);
  grpc = new Analysis(raw, { now: NOW, staticInstanceTypes: STATIC_TYPES });
});

const group = (a: Analysis, name: string): NodeGroup => a.nodeGroups.find((g) => g.name === name)!;

describe('AWS remedies', () => {
  const asg = { provider: 'aws', name: 'eks-batch-20260105' } as NodeGroup;
  it('are the aws CLI commands reports printed before the seam', () => {
    const ctx = {} as never;
    expect(remedyText(awsProvider.raiseMaxSize(asg, 8, ctx))).toBe(
      "Raise the ASG's max size, e.g.\n  aws autoscaling update-auto-scaling-group --auto-scaling-group-name eks-batch-20260105 --max-size 8",
    );
    expect(awsProvider.setTemplateLabels([{ group: asg, key: 'node-pool', value: 'batch' }], ctx).commands).toEqual([
      'aws autoscaling create-or-update-tags --tags ResourceId=eks-batch-20260105,ResourceType=auto-scaling-group,Key=k8s.io/cluster-autoscaler/node-template/label/node-pool,Value=batch,PropagateAtLaunch=false',
    ]);
    expect(awsProvider.templateSourceLabel(asg, { source: 'asg', pods: [], notes: [], instanceType: 'm5.large' }, 'type', ctx)).toBe('ASG, m5.large');
  });
});

describe('externalgrpc remedies', () => {
  it('names the instance type of the group\'s instanceParameter, and none for the default group', () => {
    const ctx = grpc.providerContext;
    expect(grpc.provider.instanceTypeOf(group(grpc, 'gpu'), ctx)).toBe('GN7.8XLARGE128');
    expect(grpc.provider.instanceTypeOf(group(grpc, 'default'), ctx)).toBeUndefined();
  });

  it('does not offer a larger max size for a group that cannot create instances', () => {
    const r = grpc.provider.raiseMaxSize(group(grpc, 'default'), 2000, grpc.providerContext);
    expect(r.possible).toBe(false);
    expect(r.commands).toEqual([]);
    expect(r.intro).toContain('"nodegroup(default).InstanceParameter[] not exist"');
  });

  it('keeps a hostile label value on one comment line and quotes the group name for the shell', () => {
    const g = { ...group(grpc, 'general'), name: "gen'eral; rm -rf /" } as NodeGroup;
    const r = grpc.provider.setTemplateLabels([{ group: g, key: 'team', value: 'a\nb"c' }], grpc.providerContext);
    expect(r.commands).toContain(`#   group 'gen'\\''eral; rm -rf /': nodeTemplate.labels: "team": "a\\nb\\"c"`);
    expect(r.commands.every((c) => !c.includes('\n'))).toBe(true);
  });

  it('edits a bare nodegroup-config.yaml and restarts the provider when no ConfigMap is in the input', () => {
    const fileOnly: RawInputs = {
      ...raw,
      configMaps: raw.configMaps.filter((c) => c.metadata.name !== 'nodegroup-status' && c.metadata.name !== 'cluster-autoscaler-grpc-cloud-provider-cm'),
      externalGrpcConfigs: [
        {
          source: { kind: 'file', path: '/srv/nodegroup-config.yaml' },
          text: 'cloudProviderOption:\n  instanceParameter: {}\nnodeGroups:\n- id: batch\n  minSize: 0\n  maxSize: 3\n  nodeTemplate:\n    labels: {}\n',
        },
      ],
    };
    const a = new Analysis(fileOnly, { now: NOW, staticInstanceTypes: STATIC_TYPES });
    const r = a.provider.setTemplateTaint(group(a, 'batch'), { key: 'dedicated', value: 'batch', effect: 'NoSchedule' }, a.providerContext);
    expect(r.intro).toContain('in /srv/nodegroup-config.yaml');
    expect(r.commands).toEqual([
      '#   group batch: nodeTemplate.taints: add {key: "dedicated", value: "batch", effect: "NoSchedule"}',
      'kubectl -n kube-system rollout restart deployment cluster-autoscaler-grpc-cloud-provider',
    ]);
    expect(r.note).toContain('ConfigMap kube-system/nodegroup-status');
  });
});
