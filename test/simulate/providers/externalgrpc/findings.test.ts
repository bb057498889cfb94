// Findings G1-G11 and stuck instances on the fixture cluster (provider @ f792442; CA tags 1.32.1 / 1.35.0).
import { describe, expect, it } from 'vitest';
import type { Node } from '../../../../src/model/k8s.js';
import {
  accountsMisplaced,
  credentialsInConfigMap,
  defaultGroupExposure,
  externalGrpcFindings,
  externalGrpcFindingsInput,
  fileIgnored,
  type GrpcFinding,
  type GrpcFindingsInput,
  hiddenFailedCreates,
  ignoredTemplateResources,
  membershipDrift,
  optionsIncompatibility,
  partialOptions,
  protoTemplateIncompatibility,
  startupTimeZero,
  stuckInstances,
} from '../../../../src/providers/externalgrpc/findings.js';
import { clusterInputs, cluster, NOW } from '../../../fixtures/externalgrpc/load.js';

function input(opts: Parameters<typeof clusterInputs>[0] = {}): GrpcFindingsInput {
  const { raw, ca } = clusterInputs(opts);
  return externalGrpcFindingsInput({ raw, ca, now: NOW });
}
const summary = (fs: GrpcFinding[]) => fs.map((f) => `${f.id}/${f.kind}${f.group ? `@${f.group}` : ''}${f.node ? `#${f.node}` : ''}${f.instance ? `:${f.instance}` : ''}`);

const ca135 = input({ caImageTag: 'v1.35.0' });
const ca132 = input({ caImageTag: 'v1.32.1' });
const ca125 = input({ caImageTag: 'v1.25.3' });

describe('G1 proto: CA 1.35 reads only nodeBytes', () => {
  it('fires for CA 1.35 with this provider\'s image', () => {
    expect(summary(protoTemplateIncompatibility(ca135))).toEqual(['G1/template-nil']);
    expect(protoTemplateIncompatibility(ca135)[0].values).toMatchObject({ caMinor: 35, providerEra: 'pre-1.35' });
  });
  it('does not fire for CA 1.32 or an unknown provider image', () => {
    expect(protoTemplateIncompatibility(ca132)).toEqual([]);
    expect(protoTemplateIncompatibility({ ...ca135, era: 'unknown' })).toEqual([]);
  });
});

describe('G2 options the CA version cannot read from this provider', () => {
  it('CA 1.32 panics on every group with autoscalingOptions', () => {
    expect(summary(optionsIncompatibility(ca132))).toEqual(['G2/panic@general', 'G2/panic@gpu-a100']);
  });
  it('CA 1.35 zeroes the timers of groups with autoscalingOptions', () => {
    const fs = optionsIncompatibility(ca135);
    expect(summary(fs)).toEqual(['G2/durations-zero@general', 'G2/durations-zero@gpu-a100']);
    expect(fs[0].values).toEqual({ scaleDownUnneededTimeMs: 0, scaleDownUnreadyTimeMs: 0, maxNodeProvisionTimeMs: 0 });
  });
  it('CA 1.28 gets MaxNodeProvisionTime 0 for every group; CA 1.25 has no such issue', () => {
    expect(optionsIncompatibility(input({ caImageTag: 'v1.28.7' })).map((f) => f.kind)).toEqual(Array(5).fill('provision-time-zero'));
    expect(optionsIncompatibility(ca125)).toEqual([]);
  });
});

describe('G3 template resources that never reach CA', () => {
  it('reports ignored allocatable and the dropped GPU', () => {
    expect(summary(ignoredTemplateResources(ca135))).toEqual([
      'G3/allocatable-ignored@worker-addons',
      'G3/allocatable-ignored@general',
      'G3/allocatable-ignored@gpu-a100',
      'G3/capacity-dropped@gpu-a100',
    ]);
    expect(ignoredTemplateResources(ca135)[0].values).toEqual({ 'allocatable.cpu': '8 -> 48' });
  });
  it('does not fire when allocatable equals capacity (master, default)', () => {
    const only = { ...ca135, groups: ca135.groups.filter((g) => g.id === 'master' || g.id === 'default') };
    expect(ignoredTemplateResources(only)).toEqual([]);
  });
});

describe('G4 partial autoscalingOptions', () => {
  it('fires for gpu-a100 only (it sets only scaleDownUnneededTime)', () => {
    const fs = partialOptions(ca135);
    expect(summary(fs)).toEqual(['G4/partial-options@gpu-a100']);
    expect(fs[0].values.missing).toEqual(['scaleDownUtilizationThreshold', 'scaleDownGpuUtilizationThreshold', 'scaleDownUnreadyTime']);
  });
});

describe('G5 failed creates hidden from CA', () => {
  it('fires for the Pending/Failed record without providerID', () => {
    const fs = hiddenFailedCreates(ca135);
    expect(summary(fs)).toEqual(['G5/failed-create-hidden@general:a1b2c3d4']);
    expect(fs[0].values.error).toContain('ResourceInsufficient.SpecifiedInstanceType');
  });
  it('does not fire for a Pending record still being processed', () => {
    const groups = ca135.groups.map((g) => ({ ...g, instances: g.instances.map((i) => (i.id === 'a1b2c3d4' ? { ...i, status: 'InProcess', error: '' } : i)) }));
    expect(hiddenFailedCreates({ ...ca135, groups })).toEqual([]);
  });
});

describe('G6 the default group', () => {
  it('reports the node it holds and the groups that cannot create instances', () => {
    const fs = defaultGroupExposure(ca135);
    expect(summary(fs)).toEqual(['G6/default-holds-nodes@default', 'G6/no-instance-parameter@gpu-a100', 'G6/no-instance-parameter@default']);
    expect(fs[0].values.nodes).toEqual(['legacy-db-01']);
  });
  it('does not report default holding nodes when every node matches a group', () => {
    const nodes = ca135.nodes.filter((n) => n.metadata.name !== 'legacy-db-01');
    const groups = ca135.groups.map((g) => (g.id === 'default' ? { ...g, instances: [] } : g));
    expect(summary(defaultGroupExposure({ ...ca135, nodes, groups })).filter((s) => s.startsWith('G6/default-holds'))).toEqual([]);
  });
});

describe('G7 membership that depends on a changeable taint', () => {
  it('fires for a Running node that picked up an uninitialized taint (it moves to default)', () => {
    const nodes: Node[] = cluster().nodes.map((n) =>
      n.metadata.name === 'node-7fj2ka.vm10-20-1-14'
        ? { ...n, spec: { ...n.spec, taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }] } }
        : n,
    );
    const fs = membershipDrift(input({ caImageTag: 'v1.35.0', nodes }));
    expect(summary(fs)).toEqual(['G7/moves@general#node-7fj2ka.vm10-20-1-14']);
    expect(fs[0].values).toMatchObject({ recorded: 'general', matches: 'default' });
  });
  it('fires for a --startup-taint the provider does not ignore', () => {
    const nodes: Node[] = [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'fresh', labels: {} }, spec: { taints: [{ key: 'example.com/agent-not-ready', effect: 'NoSchedule' }] } }];
    expect(membershipDrift({ ...ca135, nodes, startupTaints: ['example.com/agent-not-ready'] }).map((f) => f.kind)).toEqual(['transient-taint']);
  });
  it('does not fire on the fixture as recorded', () => {
    expect(membershipDrift(ca135)).toEqual([]);
  });
});

describe('G8 credentials in ConfigMaps', () => {
  it('reports the nodegroup-status ConfigMap and the ConfigMap holding the file, by path only', () => {
    const fs = credentialsInConfigMap(ca135);
    expect(fs.map((f) => f.source)).toEqual([
      'ConfigMap kube-system/nodegroup-status',
      'file /opt/nodegroup-config.yaml (ConfigMap kube-system/cluster-autoscaler-grpc-cloud-provider-cm key nodegroup-config)',
    ]);
    const text = JSON.stringify(fs);
    for (const secret of ['AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE', 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY', 'Wr0ng-Place-For-A-Passw0rd']) expect(text).not.toContain(secret);
  });
  it('does not fire without credentials', () => {
    expect(credentialsInConfigMap({ ...ca135, config: { ...ca135.config, credentialPaths: [] } })).toEqual([]);
  });
});

describe('G9 accounts at the README\'s legacy place', () => {
  it('fires when the provider loads the README-style file', () => {
    const fs = accountsMisplaced(input({ withStatus: false }));
    expect(summary(fs)).toEqual(['G9/accounts-legacy']);
    expect(fs[0].values).toEqual({ legacyProviders: ['tencentcloud'], accounts: [] });
  });
  it('does not fire for the ConfigMap with cloudProviderOption.accounts', () => {
    expect(accountsMisplaced(ca135)).toEqual([]);
  });
});

describe('G10 file edits ignored while the ConfigMap exists', () => {
  it('fires with the differences', () => {
    const fs = fileIgnored(ca135);
    expect(summary(fs)).toEqual(['G10/file-ignored']);
    expect(fs[0].values.differences).toContain('group "general" maxSize differs');
  });
  it('does not fire when the provider loads the file', () => {
    expect(fileIgnored(input({ withStatus: false }))).toEqual([]);
  });
});

describe('G11 MaxNodeStartupTime 0 on CA 1.35+', () => {
  it('fires on 1.35 only', () => {
    expect(summary(startupTimeZero(ca135))).toEqual(['G11/startup-time-zero']);
    expect(startupTimeZero(ca132)).toEqual([]);
  });
});

describe('instances stuck in a stage (节点创建后未加入集群)', () => {
  it('fires for the hook failure at Created and the Joined record that is never retried', () => {
    const fs = stuckInstances(ca135);
    expect(summary(fs)).toEqual(['STUCK/created-never-joined@general:p0w8zn4c', 'STUCK/stuck-joined@general:s5ny2c8v']);
    expect(fs[1].message).toContain('never looks again');
  });
  it('fires past the bound and not before it', () => {
    const creating = (updateTime: string) => ({
      ...ca135,
      groups: [{ ...ca135.groups[2], instances: [{ id: 'z', name: '', ip: '', providerID: 'externalgrpc://tencentcloud/ops-prod/ap-guangzhou/ins-z', stage: 'Creating', status: 'InProcess', error: '', updateTime }] }],
    });
    expect(stuckInstances(creating('2026-11-24T17:40:00+08:00'))).toHaveLength(1);
    expect(stuckInstances(creating('2026-11-24T18:00:00+08:00'))).toEqual([]);
  });
});

describe('externalGrpcFindings', () => {
  it('collects every finding in id order', () => {
    expect([...new Set(externalGrpcFindings(ca135).map((f) => f.id))]).toEqual(['G1', 'G2', 'G3', 'G4', 'G5', 'G6', 'G8', 'G10', 'G11', 'STUCK']);
    expect(externalGrpcFindings(ca135).every((f) => f.upstream.length > 0)).toBe(true);
  });
});
