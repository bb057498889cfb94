// The externalgrpc-* checks on the fixture cluster (provider sunkaimr/cluster-autoscaler-grpc-cloud-provider @ f792442,
// CA tags 1.25-1.35): each fires on the failure mode it names, stays silent without it, and is skipped, saying what
// to supply, when the provider's config is not in the input.
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import type { CommandName } from '../../src/checks/define-check.js';
import { runChecks } from '../../src/checks/lib/engine.js';
import type { ConfigMap, Node } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { inputs } from '../builders/inputs.js';
import { cluster, clusterInputs, FILE_TEXT, NOW, providerConfigMap, STATUS_CONFIGMAP } from '../fixtures/externalgrpc/load.js';
import { STATIC_TYPES } from './harness.js';

const COMMANDS: CommandName[] = ['why-pending', 'scale-down-blockers', 'asg-audit'];

function run(raw: RawInputs, id: string) {
  const analysis = new Analysis(raw, { now: NOW, staticInstanceTypes: STATIC_TYPES });
  const check = CHECKS.find((c) => c.meta.id === id);
  if (!check) throw new Error(`no check ${id}`);
  const command = COMMANDS.find((c) => check.meta.commands.includes(c)) ?? 'why-pending';
  const r = runChecks([check], analysis, command);
  return { findings: r.findings, skipped: r.skipped };
}
const raw = (opts: Parameters<typeof clusterInputs>[0] = {}) => clusterInputs(opts).raw;
const messages = (raw: RawInputs, id: string) => run(raw, id).findings.map((f) => f.message);

/** The status ConfigMap with its NodeGroupsConfig text edited. */
function withStatusText(edit: (text: string) => string): RawInputs {
  const c = cluster();
  const status = structuredClone(STATUS_CONFIGMAP);
  status.data = { ...status.data, NodeGroupsConfig: edit(status.data?.NodeGroupsConfig ?? '') };
  return inputs({ deployments: c.deployments, configMaps: [...c.configMaps, status, providerConfigMap()], nodes: c.nodes });
}

describe('every externalgrpc check', () => {
  const ids = CHECKS.map((c) => c.meta.id).filter((id) => id.startsWith('externalgrpc-'));

  it('is declared for the externalgrpc provider only, with an upstream reference', () => {
    expect(ids).toHaveLength(14);
    for (const id of ids) {
      const meta = CHECKS.find((c) => c.meta.id === id)!.meta;
      expect(meta.providers, id).toEqual(['externalgrpc']);
      expect(meta.upstream, id).toMatch(/cluster-autoscaler-grpc-cloud-provider|kubernetes\/autoscaler/);
    }
  });

  it('is skipped, naming the ConfigMap to dump, when the provider config is not in the input', () => {
    const c = cluster();
    const bare = inputs({ deployments: c.deployments, configMaps: c.configMaps, nodes: c.nodes });
    for (const id of ids) {
      const r = run(bare, id);
      expect(r.findings, id).toEqual([]);
      expect(r.skipped.map((s) => s.reason), id).toEqual(['not-provided']);
      expect(r.skipped[0].detail, id).toContain('kubectl -n kube-system get configmap nodegroup-status -o json');
    }
  });

  it('does not run, and is not listed, when CA runs the AWS provider', () => {
    const c = cluster();
    const aws = structuredClone(c.deployments[0]);
    const container = aws.spec!.template!.spec!.containers![0];
    container.command = (container.command ?? []).map((a) => (a === '--cloud-provider=externalgrpc' ? '--cloud-provider=aws' : a));
    const r = inputs({ deployments: [aws], configMaps: [...c.configMaps, structuredClone(STATUS_CONFIGMAP)], nodes: c.nodes });
    for (const id of ids) {
      const out = run(r, id);
      expect(out.skipped, id).toEqual([]);
      expect(out.findings, id).toEqual([]);
    }
  });
});

describe('externalgrpc-proto-version-mismatch', () => {
  const id = 'externalgrpc-proto-version-mismatch';
  it('fires for CA 1.35 with the pre-1.35 provider: no scratch templates (nodeBytes only; externalgrpc_node_group.go 1.35.0:230-244)', () => {
    const fs = run(raw({ caImageTag: 'v1.35.0' }), id).findings;
    expect(fs[0].message).toMatch(/^CA v1\.35\.0 reads only nodeBytes .* groups master, worker-addons, general, gpu-a100, default get no template/);
    expect(fs[0].severity).toBe('error');
    // timers of groups with autoscalingOptions arrive as 0 (fields 8-10 never set; wrapper.go:342-353) and G11
    expect(fs.filter((f) => f.message.includes('scaleDownUnneededTime, scaleDownUnreadyTime, maxNodeProvisionTime = 0')).map((f) => f.nodeGroup)).toEqual(['general', 'gpu-a100']);
    expect(fs.some((f) => f.message.includes('MaxNodeStartupTime = 0 for every externalgrpc node group'))).toBe(true);
  });
  it('fires for CA 1.32 on each group with autoscalingOptions: the nil MaxNodeProvisionTime dereference', () => {
    const fs = run(raw({ caImageTag: 'v1.32.1' }), id).findings;
    expect(fs.map((f) => f.nodeGroup)).toEqual(['general', 'gpu-a100']);
    expect(fs[0].message).toContain('panics with a nil-pointer dereference');
  });
  it('fires once for CA 1.28, naming every group whose MaxNodeProvisionTime is 0 (fixed by 6df52ec0a4 in 1.29)', () => {
    const fs = run(raw({ caImageTag: 'v1.28.7' }), id).findings;
    expect(fs).toHaveLength(1);
    expect(fs[0].message).toContain('MaxNodeProvisionTime = 0 for node groups master, worker-addons, general, gpu-a100, default');
    expect(fs[0].severity).toBe('warning');
  });
  it('does not fire for CA 1.25, whose options have no per-group provision time', () => {
    expect(run(raw({ caImageTag: 'v1.25.3' }), id).findings).toEqual([]);
  });

  /** The fixture with the provider's container image replaced (a fork or a private rebuild under another name). */
  function withProviderImage(tag: string, image: string): RawInputs {
    const r = raw({ caImageTag: tag });
    const provider = r.deployments.find((d) => d.metadata.name !== 'cluster-autoscaler')!;
    provider.spec!.template!.spec!.containers![0].image = image;
    return r;
  }
  const FORK = 'registry.example.com/platform/grpc-node-provider:2.4.0';

  it("says it could not tell, naming the image and the groups, when the provider's image is not the provider's own build (CA 1.32)", () => {
    const r = run(withProviderImage('v1.32.1', FORK), id);
    // the panic needs a provider that never sets field 5: a build on the 1.29+ proto sets it
    expect(r.findings).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual(['not-provided']);
    expect(r.skipped[0].detail).toContain(`image ${FORK} is not`);
    expect(r.skipped[0].detail).toContain('CA v1.32.1 panics on GetOptions (node groups general, gpu-a100)');
    expect(r.skipped[0].detail).toContain('go.mod');
  });
  it('still reports what holds whatever proto the provider has: CA 1.28 never copies MaxNodeProvisionTime, CA 1.35 has no MaxNodeStartupTime field', () => {
    const old = run(withProviderImage('v1.28.7', FORK), id);
    expect(old.findings.map((f) => f.message)).toEqual([expect.stringContaining('MaxNodeProvisionTime = 0 for node groups master')]);
    expect(old.skipped).toEqual([]);
    const recent = run(withProviderImage('v1.35.0', FORK), id);
    expect(recent.findings.map((f) => f.message)).toEqual([expect.stringContaining('MaxNodeStartupTime = 0 for every externalgrpc node group')]);
    expect(recent.skipped[0].detail).toContain('CA v1.35.0 gets no template for groups without a Ready node (node groups master, worker-addons, general, gpu-a100, default)');
  });
  it('names the Deployment to add when the provider Deployment is not in the input', () => {
    const r = raw({ caImageTag: 'v1.32.1' });
    const without = { ...r, deployments: r.deployments.filter((d) => d.metadata.name === 'cluster-autoscaler') };
    const out = run(without, id);
    expect(out.findings).toEqual([]);
    expect(out.skipped[0].detail).toContain("the provider's Deployment is not in the input");
    expect(out.skipped[0].detail).toContain('kubectl get deployments -A -o json');
  });
});

describe('externalgrpc-autoscaling-options-partial', () => {
  const id = 'externalgrpc-autoscaling-options-partial';
  it('fires for gpu-a100, which sets only scaleDownUnneededTime (node_group.go:144-149)', () => {
    const fs = run(raw(), id).findings;
    expect(fs.map((f) => f.nodeGroup)).toEqual(['gpu-a100']);
    expect(fs[0].message).toContain('but not scaleDownUtilizationThreshold, scaleDownGpuUtilizationThreshold, scaleDownUnreadyTime');
    expect(fs[0].remediation).toContain('scaleDownUtilizationThreshold: 0.5');
  });
  it('does not fire when the group writes all four keys', () => {
    const full = withStatusText((t) => t.replace(/( +)scaleDownUnneededTime: 20m0s\n/, '$1scaleDownUnneededTime: 20m0s\n$1scaleDownUtilizationThreshold: 0.5\n$1scaleDownGpuUtilizationThreshold: 0.5\n$1scaleDownUnreadyTime: 20m0s\n'));
    expect(messages(full, id)).toEqual([]);
  });
});

describe('externalgrpc-template-resources-ignored', () => {
  const id = 'externalgrpc-template-resources-ignored';
  it('fires for the ignored allocatable and, as an error, for the GPU dropped from capacity (BuildNodeFromTemplate l.1056-1077)', () => {
    const fs = run(raw(), id).findings;
    // the engine sorts by severity, then subject
    expect(fs.map((f) => `${f.severity} ${f.nodeGroup}`)).toEqual(['error gpu-a100', 'warning general', 'warning gpu-a100', 'warning worker-addons']);
    expect(fs[3].message).toContain('declares allocatable cpu=8, but the provider builds its template with allocatable = capacity (cpu=48)');
    expect(fs[0].message).toContain('CA never sees nvidia.com/gpu');
  });
  it('does not fire for groups whose allocatable equals capacity and whose capacity has only cpu, memory, ephemeral-storage', () => {
    const c = cluster();
    const status = structuredClone(STATUS_CONFIGMAP);
    const cfg = status.data?.NodeGroupsConfig ?? '';
    status.data = { NodeGroupsConfig: cfg.slice(0, cfg.indexOf('nodeGroups:')) + 'nodeGroups:\n  - id: master\n    minSize: 1\n    maxSize: 1\n    targetSize: 1\n    nodeTemplate:\n      labels: {node-role.kubernetes.io/control-plane: ""}\n      capacity: {cpu: "8", memory: 16Gi, ephemeral-storage: 200Gi}\n      allocatable: {cpu: "8", memory: 16Gi, ephemeral-storage: 200Gi}\n' };
    expect(messages(inputs({ deployments: c.deployments, configMaps: [...c.configMaps, status], nodes: c.nodes }), id)).toEqual([]);
  });
});

describe('externalgrpc-default-group-holds-nodes', () => {
  const id = 'externalgrpc-default-group-holds-nodes';
  it('fires for the node no group template matches (MatchNodeGroup l.561-564)', () => {
    const fs = run(raw(), id).findings;
    expect(fs.map((f) => [f.subject.name, f.nodeGroup, f.severity])).toEqual([['legacy-db-01', 'default', 'warning']]);
    expect(fs[0].remediation).toContain("kubectl annotate node legacy-db-01 cluster-autoscaler.kubernetes.io/scale-down-disabled=true");
  });
  it('does not fire when every node matches a group', () => {
    expect(messages(raw({ nodes: cluster().nodes.filter((n) => n.metadata.name !== 'legacy-db-01') }), id)).toEqual([]);
  });
});

describe('externalgrpc-group-cannot-create-instances', () => {
  const id = 'externalgrpc-group-cannot-create-instances';
  it('fires for groups without instanceParameter that may grow (createInstance l.1842-1849)', () => {
    const fs = run(raw(), id).findings;
    expect(fs.map((f) => f.nodeGroup)).toEqual(['default', 'gpu-a100']);
    expect(fs[0].message).toContain('"nodegroup(default).InstanceParameter[] not exist"');
  });
  it('does not fire for a group at its max size', () => {
    const capped = withStatusText((t) => t.replace(/maxSize: 1000/, 'maxSize: 1').replace(/instanceParameter: ""\n(\s+)instances: \[\]/, 'instanceParameter: x\n$1instances: []'));
    expect(run(capped, id).findings.map((f) => f.nodeGroup)).not.toContain('default');
  });
});

describe('externalgrpc-node-group-membership-drift', () => {
  const id = 'externalgrpc-node-group-membership-drift';
  it('fires for a Running node that picked up a taint its group does not list: it moves to default (UpdateNodeInNodeGroup l.796-827)', () => {
    const nodes: Node[] = cluster().nodes.map((n) =>
      n.metadata.name === 'node-7fj2ka.vm10-20-1-14'
        ? { ...n, spec: { ...n.spec, taints: [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }] } }
        : n,
    );
    const fs = run(raw({ nodes }), id).findings;
    expect(fs.map((f) => f.message)).toEqual([
      'Node node-7fj2ka.vm10-20-1-14 is recorded in node group general but its labels, annotations and taints now match default: the provider moves it at its next update, and CA then sizes and removes it as part of default.',
    ]);
  });
  it('does not fire on the fixture as recorded', () => {
    expect(messages(raw(), id)).toEqual([]);
  });
});

describe('externalgrpc-credentials-in-configmap', () => {
  const id = 'externalgrpc-credentials-in-configmap';
  it('names both ConfigMaps and the key paths, never the values (Yaml() l.1102-1124)', () => {
    const fs = run(raw(), id).findings;
    expect(fs.map((f) => f.subject)).toEqual([
      { kind: 'ConfigMap', name: 'cluster-autoscaler-grpc-cloud-provider-cm', namespace: 'kube-system' },
      { kind: 'ConfigMap', name: 'nodegroup-status', namespace: 'kube-system' },
    ]);
    const text = JSON.stringify(fs);
    for (const secret of ['AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE', 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY']) expect(text).not.toContain(secret);
    expect(fs[1].message).toContain('cloudProviderOption.accounts.tencentcloud.ops-prod.secretKey');
  });
  it('does not fire when the config holds no credentials', () => {
    const clean = withStatusText((t) => t.replace(/\n\s+(secretId|secretKey|Password):[^\n]*/g, ''));
    const c = cluster();
    const r = inputs({ deployments: c.deployments, configMaps: [...c.configMaps, ...clean.configMaps.filter((m: ConfigMap) => m.metadata.name === 'nodegroup-status')], nodes: c.nodes });
    expect(messages(r, id)).toEqual([]);
  });
});

describe('externalgrpc-accounts-key-misplaced', () => {
  const id = 'externalgrpc-accounts-key-misplaced';
  it("fires when the provider loads the README-style file (provider/provier.go:14-17 reads `accounts`)", () => {
    const fs = run(raw({ withStatus: false }), id).findings;
    expect(fs).toHaveLength(1);
    expect(fs[0].message).toContain('under cloudProviderOption.tencentcloud (the README\'s layout) but the provider reads cloudProviderOption.accounts: it finds no account');
    expect(fs[0].severity).toBe('error');
    expect(fs[0].subject).toEqual({ kind: 'File', name: '/opt/nodegroup-config.yaml' });
  });
  it('does not fire for the ConfigMap that uses cloudProviderOption.accounts', () => {
    expect(messages(raw(), id)).toEqual([]);
  });
});

/**
 * The provider's Deployment in its own namespace, told with --namespace=kube-system where its status ConfigMap is; the
 * ConfigMap with its start-up file moves with it (a pod mounts ConfigMaps of its own namespace).
 */
function providerInNamespace(ns: string): RawInputs {
  const r = raw();
  const provider = r.deployments.find((d) => d.metadata.name === 'cluster-autoscaler-grpc-cloud-provider')!;
  provider.metadata.namespace = ns;
  provider.spec!.template!.spec!.containers![0].command!.push('--namespace=kube-system');
  r.configMaps.find((c) => c.metadata.name === 'cluster-autoscaler-grpc-cloud-provider-cm')!.metadata.namespace = ns;
  return r;
}

describe('the kubectl commands of the externalgrpc checks', () => {
  it("scale and read the logs of the provider's Deployment in its own namespace, and edit its ConfigMap where --namespace says", () => {
    const r = providerInNamespace('autoscaling');
    const ignored = run(r, 'externalgrpc-config-file-ignored').findings;
    expect(ignored).toHaveLength(1);
    expect(ignored[0].remediation).toContain('kubectl -n autoscaling scale deploy/cluster-autoscaler-grpc-cloud-provider --replicas=0');
    expect(ignored[0].remediation).toContain('kubectl -n kube-system edit configmap nodegroup-status');
    expect(ignored[0].remediation).toContain('kubectl -n autoscaling scale deploy/cluster-autoscaler-grpc-cloud-provider --replicas=1');
    const stuck = run(r, 'externalgrpc-instance-stuck').findings;
    expect(stuck.length).toBeGreaterThan(0);
    for (const f of stuck) expect(f.remediation).toContain('kubectl -n autoscaling logs deploy/cluster-autoscaler-grpc-cloud-provider');
    const hidden = run(r, 'externalgrpc-failed-create-hidden').findings;
    expect(hidden).toHaveLength(1);
    expect(hidden[0].remediation).toContain('kubectl -n autoscaling logs deploy/cluster-autoscaler-grpc-cloud-provider');
  });
});

describe('externalgrpc-config-file-ignored', () => {
  const id = 'externalgrpc-config-file-ignored';
  it('fires with what differs when the file and the ConfigMap disagree (loadNodeGroups l.1377-1400)', () => {
    const fs = run(raw(), id).findings;
    expect(fs).toHaveLength(1);
    expect(fs[0].message).toContain('group "general" maxSize differs');
    expect(fs[0].remediation).toContain('kubectl -n kube-system scale deploy/cluster-autoscaler-grpc-cloud-provider --replicas=0');
  });
  it('does not fire when the provider loads the file, and is skipped when only the ConfigMap is in the input', () => {
    expect(messages(raw({ withStatus: false }), id)).toEqual([]);
    const r = run(raw({ withFile: false }), id);
    expect(r.findings).toEqual([]);
    expect(r.skipped[0].detail).toContain("not the provider's start-up file");
  });
  it('uses the fixture file text as the start-up file', () => {
    expect(FILE_TEXT).toContain('nodeGroups:');
  });
});

describe('externalgrpc-instance-stuck', () => {
  const id = 'externalgrpc-instance-stuck';
  it('fires for the hook failure at Created (节点创建后未加入集群) and the Joined record never retried (handleRouteInstances l.1606-1653)', () => {
    const fs = run(raw(), id).findings;
    expect(fs.map((f) => [f.subject.name, f.nodeGroup])).toEqual([
      ['p0w8zn4c', 'general'],
      ['s5ny2c8v', 'general'],
    ]);
    expect(fs[0].message).toMatch(/stuck in Created \(Failed\).*after_created_hook\.sh/);
    expect(fs[1].message).toContain('status InProcess is not retried');
  });
  it('does not fire for a record that reached Running', () => {
    const ok = withStatusText((t) => t.replace(/stage: Created/g, 'stage: Running').replace(/stage: Joined/g, 'stage: Running'));
    expect(messages(ok, id)).toEqual([]);
  });
});

describe('externalgrpc-failed-create-hidden', () => {
  const id = 'externalgrpc-failed-create-hidden';
  it('fires for the Pending/Failed record without providerID (wrapper.go:256-262, RefreshTargetSize l.734-749)', () => {
    const fs = run(raw(), id).findings;
    expect(fs.map((f) => [f.subject.name, f.nodeGroup, f.caReason])).toEqual([['a1b2c3d4', 'general', 'ScaleUpTimedOut']]);
    expect(fs[0].message).toContain('ResourceInsufficient.SpecifiedInstanceType');
  });
  it('does not fire while the provider still processes the create', () => {
    const busy = withStatusText((t) => t.replace(/status: Failed\n(\s+)error: 'create instance\(a1b2c3d4\)[^\n]*/, 'status: InProcess\n$1error: ""'));
    expect(messages(busy, 'externalgrpc-failed-create-hidden')).toEqual([]);
  });
});

describe('externalgrpc-ca-cannot-run and the remedies that work', () => {
  it('says CA is not running on CA 1.32 with autoscalingOptions (error, per group); on 1.28 that no node it adds joins', () => {
    const r = run(raw({ caImageTag: 'v1.32.7' }), 'externalgrpc-ca-cannot-run');
    expect(r.findings.map((f) => [f.severity, f.subject.kind])).toEqual([
      ['error', 'Deployment'],
      ['error', 'Deployment'],
    ]);
    expect(r.findings[0].message).toMatch(/^CA is not running: nothing is scaled up or down\. CA v1\.32\.7 panics on node group general's GetOptions answer/);
    expect(r.findings[0].remediation).toMatch(/Remove autoscalingOptions from node group general.*or run CA 1\.26 or older\. Not 1\.27-1\.28/);
    // CA 1.28 runs, but reads every group's provision time as 0: each new instance is deleted before it can join
    const on128 = run(raw({ caImageTag: 'v1.28.4' }), 'externalgrpc-ca-cannot-run').findings;
    expect(on128.map((f) => [f.severity, f.subject.kind])).toEqual([['error', 'Deployment']]);
    expect(on128[0].message).toMatch(/^CA runs, but no node it adds ever joins: CA v1\.28\.4 reads --max-node-provision-time as 0 for node groups .*general/);
    expect(on128[0].remediation).toMatch(/^Run CA 1\.29-1\.34 with no autoscalingOptions in any group .*or CA 1\.26 or older/);
  });

  it('pins CA to versions that read this provider: never "1.28 or older"', () => {
    for (const tag of ['v1.32.7', 'v1.35.2']) {
      const fixes = run(raw({ caImageTag: tag }), 'externalgrpc-proto-version-mismatch').findings.map((f) => f.remediation ?? '');
      expect(fixes.length, tag).toBeGreaterThan(0);
      for (const fix of fixes) expect(fix, tag).not.toMatch(/1\.28\.x or older/);
      // every fix that names a version to run names the right ones
      const pins = fixes.filter((fix) => /or older/.test(fix));
      expect(pins.length, tag).toBeGreaterThan(0);
      for (const fix of pins) expect(fix, tag).toMatch(/1\.26 or older.*not 1\.27-1\.28|1\.26 or older \(not 1\.27-1\.28/is);
    }
    const nilTemplate = run(raw({ caImageTag: 'v1.35.2' }), 'externalgrpc-proto-version-mismatch').findings.find((f) => f.message.includes('nodeBytes'));
    expect(nilTemplate?.remediation).toMatch(/^CA crashes on every loop while such a group has no Ready node/);
  });

  it("retries a failed create through the provider's HTTP API instead of stopping the provider to edit its ConfigMap", () => {
    const f = run(raw({ caImageTag: 'v1.28.4' }), 'externalgrpc-failed-create-hidden').findings[0];
    expect(f.remediation).toContain(`curl -sS -X POST http://127.0.0.1:8080/api/v1/nodegroup/instance -H 'Content-Type: application/json' -d '[{"id":"a1b2c3d4","stage":"Pending","status":"Init","error":""}]'`);
    expect(f.remediation).toContain("curl -sS -X PATCH 'http://127.0.0.1:8080/api/v1/nodegroup/general?delta=-1'");
    expect(f.remediation).toMatch(/CA's size fix-up drops the record by itself after --max-node-provision-time \(0m as CA reads it/);
    expect(f.remediation).not.toMatch(/stop the provider/);
  });
});
