import { describe, expect, it } from 'vitest';
import { parseCaLogText } from '../../src/gather/ca-log-file.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { diffTemplates, parseCaMetrics, parseCaSnapshotz, parseMetricLine } from '../../src/simulate/ca-record.js';
import { parseQuantity } from '../../src/model/quantity.js';
import { analyze, findingsOf } from './harness.js';
import { NOW, pendingPod, world } from '../builders/world.js';

// klog lines in the shape CA 1.32 prints them at --v=4 (the world runs CA v1.32.1; NOW is 2026-01-05T12:00:00Z)
const loop = (t: string) => `I0105 ${t}.104117       1 static_autoscaler.go:274] Starting main loop`;

function withLog(raw: RawInputs, lines: string[]): RawInputs {
  raw.caLogs = [parseCaLogText(lines.join('\n'), { now: NOW, source: { kind: 'file', path: 'ca.log' } })];
  return raw;
}

function withProxy(raw: RawInputs, path: '/metrics' | '/snapshotz', text: string): RawInputs {
  raw.caProxyTexts = [...(raw.caProxyTexts ?? []), { namespace: 'kube-system', pod: 'cluster-autoscaler-6d5f8b7c9-x7k2p', port: 8085, path, text, truncated: false }];
  return raw;
}

const METRICS = `# HELP cluster_autoscaler_cluster_safe_to_autoscale [ALPHA] Whether or not cluster is healthy enough for autoscaling. 1 if it is, 0 otherwise.
# TYPE cluster_autoscaler_cluster_safe_to_autoscale gauge
cluster_autoscaler_cluster_safe_to_autoscale 1
# HELP cluster_autoscaler_last_activity [ALPHA] Last time certain part of CA logic executed.
# TYPE cluster_autoscaler_last_activity gauge
cluster_autoscaler_last_activity{activity="autoscaling"} 1.767614352e+09
cluster_autoscaler_last_activity{activity="main"} 1.767614392e+09
cluster_autoscaler_last_activity{activity="scaleDown"} 1.767614352e+09
# TYPE cluster_autoscaler_node_group_backoff_status gauge
cluster_autoscaler_node_group_backoff_status{node_group="prod-gpu",reason="OutOfResource.InsufficientInstanceCapacity"} 1
cluster_autoscaler_node_group_backoff_status{node_group="prod-general",reason=""} 0
# TYPE cluster_autoscaler_unremovable_nodes_count gauge
cluster_autoscaler_unremovable_nodes_count{reason="BlockedByPod"} 3
cluster_autoscaler_unremovable_nodes_count{reason="NotUnderutilized"} 7
cluster_autoscaler_unremovable_nodes_count{reason="NoReason"} 0
# TYPE cluster_autoscaler_failed_scale_ups_total counter
cluster_autoscaler_failed_scale_ups_total{gpu_name="",gpu_resource_name="",reason="timeout"} 2
cluster_autoscaler_failed_scale_ups_total{gpu_name="nvidia-l4",gpu_resource_name="nvidia.com/gpu",reason="timeout"} 1
# TYPE cluster_autoscaler_errors_total counter
cluster_autoscaler_errors_total{type="cloudProviderError"} 12
`;

describe('CA /metrics', () => {
  it('reads the samples CA exports, label values unescaped', () => {
    expect(parseMetricLine('a_b{x="q\\"uote",y="n\\\\"} 1.5e+02')).toEqual({ name: 'a_b', labels: { x: 'q"uote', y: 'n\\' }, value: 150 });
    expect(parseMetricLine('not a sample')).toBeUndefined();
    const m = parseCaMetrics(METRICS);
    expect(m.safeToAutoscale).toBe(1);
    expect(m.lastActivity.main).toBe(1767614392);
    expect(m.backoff).toEqual([{ group: 'prod-gpu', reason: 'OutOfResource.InsufficientInstanceCapacity' }]);
    expect(m.unremovable).toEqual({ BlockedByPod: 3, NotUnderutilized: 7 });
    expect(m.failedScaleUps).toEqual({ timeout: 3 });
    expect(m.errors).toEqual({ cloudProviderError: 12 });
    expect(m.malformedLines).toBe(0);
  });
});

describe('CA /snapshotz', () => {
  const template = {
    metadata: { name: 'template-node-for-prod-general-5577006791947779410', labels: { 'node-pool': 'general', 'kubernetes.io/hostname': 'template-node-for-prod-general-5577006791947779410' } },
    spec: { taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }] },
    status: { allocatable: { cpu: '3920m', memory: '15147436Ki', pods: '58' }, capacity: { cpu: '4', memory: '16093932Ki', pods: '58' } },
  };
  const snapshotz = JSON.stringify({
    NodeList: [{ Node: { metadata: { name: 'ip-10-0-1-10.ec2.internal' } }, Pods: [] }],
    UnscheduledPodsCanBeScheduled: [{ metadata: { name: 'api-7f9c8d6b5-x2x7q', namespace: 'web' } }],
    StartTimestamp: '2026-01-05T11:59:52.1Z',
    EndTimestamp: '2026-01-05T11:59:52.3Z',
    TemplateNodes: { 'prod-general': { Node: template, Pods: [] } },
  });
  it('reads the templates per group and the pods CA found room for', () => {
    const s = parseCaSnapshotz(snapshotz);
    if ('error' in s && !('templates' in s)) throw new Error(s.error);
    expect([...s.templates.keys()]).toEqual(['prod-general']);
    expect(s.schedulable).toEqual(['web/api-7f9c8d6b5-x2x7q']);
    expect(s.nodeCount).toBe(1);
  });
  it('says what is wrong with text that is not a snapshot', () => {
    expect(parseCaSnapshotz('<html>')).toMatchObject({ error: expect.stringContaining('not JSON') });
    expect(parseCaSnapshotz('{"kind":"Status"}')).toMatchObject({ error: expect.stringContaining('not CA') });
  });
  it('compares labels but not the hostname, taints, and quantities by value', () => {
    const ours = {
      metadata: { name: 'x', labels: { 'node-pool': 'general', 'kubernetes.io/hostname': 'x' } },
      spec: {},
      status: { allocatable: { cpu: '3.92', memory: '15147436Ki', pods: '58' }, capacity: { cpu: '4000m', memory: '16093932Ki', pods: '58' } },
    };
    expect(diffTemplates(template as never, ours as never, parseQuantity)).toEqual([
      { field: 'taint', key: 'dedicated=web:NoSchedule', ca: 'present', casdoctor: 'absent' },
    ]);
  });
  it('template-differs-from-ca names the field CA has and casdoctor lacks', () => {
    const args = ['--v=4', '--cloud-provider=aws', '--debugging-snapshot-enabled=true', '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod'];
    // CA's template is a sanitized copy of the group's node: take casdoctor's, and give CA's a taint the node gained
    const probe = analyze(world({ caArgs: args }).raw).analysis;
    const ours = probe.template(probe.nodeGroups[0]).node!;
    const theirs = structuredClone(ours);
    theirs.metadata.name = 'template-node-for-prod-general-5577006791947779410';
    theirs.metadata.labels = { ...theirs.metadata.labels, 'kubernetes.io/hostname': theirs.metadata.name };
    theirs.spec = { ...theirs.spec, taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }] };
    const snap = JSON.stringify({ NodeList: [], UnscheduledPodsCanBeScheduled: [], StartTimestamp: '2026-01-05T11:59:52.1Z', EndTimestamp: '2026-01-05T11:59:52.3Z', TemplateNodes: { 'prod-general': { Node: theirs, Pods: [] } } });
    const w = world({ caArgs: args });
    withProxy(w.raw, '/snapshotz', snap);
    const found = analyze(w.raw).findings.filter((x) => x.checkId === 'template-differs-from-ca');
    expect(found.map((f) => f.message)).toEqual([
      "Node group prod-general: CA's template differs from casdoctor's in 1 field(s): taint dedicated=web:NoSchedule (CA: present, casdoctor: absent).",
    ]);
    // the same template as casdoctor's: nothing to say
    const same = world({ caArgs: args });
    withProxy(same.raw, '/snapshotz', JSON.stringify({ NodeList: [], TemplateNodes: { 'prod-general': { Node: { ...ours, metadata: { ...ours.metadata, name: 'template-node-for-prod-general-1' } }, Pods: [] } } }));
    expect(analyze(same.raw).findings.filter((x) => x.checkId === 'template-differs-from-ca')).toEqual([]);
  });
  it('template-differs-from-ca is skipped with how to enable it when CA serves no snapshot', () => {
    const { skipped } = analyze(world().raw);
    expect(skipped.find((s) => s.checkId === 'template-differs-from-ca')?.detail).toContain('--debugging-snapshot-enabled=true');
  });
});

describe('ca-loop-stalled', () => {
  it('fires when the log goes on for minutes after the last main loop', () => {
    const raw = withLog(world().raw, [
      loop('11:40:00'),
      loop('11:40:10'),
      'I0105 11:40:10.200000       1 static_autoscaler.go:590] No unschedulable pods',
      'W0105 11:59:50.000000       1 reflector.go:569] k8s.io/client-go/informers/factory.go:160: watch of *v1.Pod ended with: an error on the server ("unable to decode an event from the watch stream") has prevented the request from succeeding',
    ]);
    const [f] = findingsOf(raw, 'ca-loop-stalled');
    expect(f.severity).toBe('error');
    expect(f.message).toContain("CA's last main loop started at 2026-01-05T11:40:10.104Z");
  });
  it('stays quiet while CA loops every scan interval', () => {
    const raw = withLog(world().raw, [loop('11:59:30'), loop('11:59:40'), loop('11:59:50')]);
    expect(findingsOf(raw, 'ca-loop-stalled')).toEqual([]);
  });
  it('is skipped, not passed, when CA logs below --v=4 and no metrics were read', () => {
    const raw = withLog(world().raw, ['I0105 11:59:50.118342       1 static_autoscaler.go:590] No unschedulable pods']);
    const { skipped, findings } = analyze(raw);
    expect(findings.filter((f) => f.checkId === 'ca-loop-stalled')).toEqual([]);
    expect(skipped.find((s) => s.checkId === 'ca-loop-stalled')?.detail).toContain('--v=4');
  });
  it('uses last_activity{activity="main"} when the log has no loop lines', () => {
    const raw = withProxy(world().raw, '/metrics', METRICS.replace('1.767614392e+09', '1.767613800e+09'));
    expect(findingsOf(raw, 'ca-loop-stalled')[0]?.message).toContain('last_activity');
  });
  it('is skipped with how to supply the log when there is none', () => {
    expect(analyze(world().raw).skipped.find((s) => s.checkId === 'ca-loop-stalled')?.detail).toContain('kubectl -n kube-system logs deploy/cluster-autoscaler');
  });
});

describe('ca-loop-failing', () => {
  it('names the instance type that fails every loop', () => {
    const raw = withLog(world().raw, [
      loop('11:59:30'),
      'E0105 11:59:30.300000       1 static_autoscaler.go:304] Failed to get node infos for groups: failed to build node infos for node group prod-general: ASG "prod-general" uses the unknown EC2 instance type "m9g.2xlarge"',
      loop('11:59:40'),
      'E0105 11:59:40.300000       1 static_autoscaler.go:304] Failed to get node infos for groups: failed to build node infos for node group prod-general: ASG "prod-general" uses the unknown EC2 instance type "m9g.2xlarge"',
    ]);
    const [f] = findingsOf(raw, 'ca-loop-failing');
    expect(f.severity).toBe('error');
    expect(f.message).toContain('2 time(s)');
    expect(f.message).toContain('m9g.2xlarge');
  });
  it('reports a fatal start-up error with the IRSA fix', () => {
    const raw = withLog(world().raw, [
      'F0105 11:59:31.000000       1 aws_cloud_provider.go:419] Failed to create AWS Manager: cannot autodiscover ASGs: WebIdentityErr: failed to retrieve credentials\ncaused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity\n\tstatus code: 403, request id: 2c5b2f0b-3a57-4e55-9d1f-8a3c7e9b1d20',
    ]);
    const f = findingsOf(raw, 'ca-loop-failing');
    expect(f.map((x) => x.message).join('\n')).toContain('Failed to create AWS Manager');
    expect(f[0].remediation).toContain('trust policy');
  });
  it('reports cluster_safe_to_autoscale 0 from the metrics', () => {
    const raw = withProxy(world().raw, '/metrics', METRICS.replace('cluster_safe_to_autoscale 1', 'cluster_safe_to_autoscale 0'));
    expect(findingsOf(raw, 'ca-loop-failing')[0]?.message).toContain('cluster_safe_to_autoscale 0');
  });
  it('stays quiet on a healthy log', () => {
    const raw = withLog(world().raw, [loop('11:59:30'), 'I0105 11:59:30.2       1 static_autoscaler.go:590] No unschedulable pods', loop('11:59:40')]);
    expect(findingsOf(raw, 'ca-loop-failing')).toEqual([]);
  });
});

describe('ca-log-disagrees', () => {
  const failing = (group: string, plugin: string, reason: string) =>
    `I0105 11:59:52.129870       1 orchestrator.go:588] Pod web/api-7f9c8d6b5-x2x7q can't be scheduled on ${group}, predicate checking error: can't schedule pod web/api-7f9c8d6b5-x2x7q: predicate "${plugin}" didn't pass (predicateReasons=[${reason}]; debugInfo=nodeName: "template-node-for-${group}-8674665223082153551")`;

  it('names a pod × group where CA logged a failure and casdoctor finds a fit, with both texts', () => {
    const w = world().add('pods', pendingPod().build());
    withLog(w.raw, [loop('11:59:52'), failing('prod-general', 'NodeResourcesFit', 'Insufficient cpu')]);
    const [f] = findingsOf(w.raw, 'ca-log-disagrees');
    expect(f.message).toBe(
      'Pod web/api-7f9c8d6b5-x2x7q on group prod-general: CA logged "NodeResourcesFit: Insufficient cpu" at 2026-01-05T11:59:52.129Z, but casdoctor finds the pod fits the group.',
    );
    expect(f.evidence.map((e) => e.source)).toEqual(['CA log', 'casdoctor']);
  });
  it('says nothing when CA and casdoctor agree', () => {
    const w = world().add('pods', pendingPod().withNodeSelector({ 'node-pool': 'gpu' }).build());
    withLog(w.raw, [loop('11:59:52'), failing('prod-general', 'NodeAffinity', "node(s) didn't match Pod's node affinity/selector")]);
    expect(findingsOf(w.raw, 'ca-log-disagrees')).toEqual([]);
  });
  it('ignores what CA said long before the log ends', () => {
    const w = world().add('pods', pendingPod().build());
    withLog(w.raw, [failing('prod-general', 'NodeResourcesFit', 'Insufficient cpu').replace('11:59:52', '11:00:00'), loop('11:59:52')]);
    expect(findingsOf(w.raw, 'ca-log-disagrees')).toEqual([]);
  });
  it('is skipped when the log has no per-pod lines', () => {
    const w = world().add('pods', pendingPod().build());
    withLog(w.raw, [loop('11:59:52')]);
    expect(analyze(w.raw).skipped.find((s) => s.checkId === 'ca-log-disagrees')?.detail).toContain('--v=2');
  });
});

describe('ca-log-disagrees from CA metrics', () => {
  it("names a group CA's backoff gauge has and the status ConfigMap casdoctor read does not", () => {
    const w = world().add('pods', pendingPod().build());
    withProxy(w.raw, '/metrics', METRICS.replace('node_group="prod-gpu"', 'node_group="prod-general"'));
    const [f] = analyze(w.raw).findings.filter((x) => x.checkId === 'ca-log-disagrees');
    expect(f.message).toBe(
      "Node group prod-general: CA's metrics show it in backoff (OutOfResource.InsufficientInstanceCapacity), but no status ConfigMap says so; CA skips it for scale-up until the backoff ends.",
    );
  });
  it('says nothing of a gauge for a group outside the snapshot', () => {
    const w = world().add('pods', pendingPod().build());
    withProxy(w.raw, '/metrics', METRICS);
    expect(analyze(w.raw).findings.filter((x) => x.checkId === 'ca-log-disagrees')).toEqual([]);
  });
});

describe('ca-log-disagrees in scale-down-blockers, from CA metrics', () => {
  it("compares CA's unremovable counts by reason with casdoctor's", async () => {
    const { analyzeSd, sdWorld } = await import('../builders/scale-down-world.js');
    const w = sdWorld();
    const base = analyzeSd(w.raw);
    const ours: Record<string, number> = {};
    for (const n of base.sd.nodes) if (n.report.caReason) ours[n.report.caReason] = (ours[n.report.caReason] ?? 0) + 1;
    const same = Object.entries(ours).map(([r, v]) => `cluster_autoscaler_unremovable_nodes_count{reason="${r}"} ${v}`).join('\n');
    withProxy(w.raw, '/metrics', `${same}\n`);
    expect(analyzeSd(w.raw).findings.filter((f) => f.checkId === 'ca-log-disagrees')).toEqual([]);
    w.raw.caProxyTexts = [];
    withProxy(w.raw, '/metrics', `${same}\ncluster_autoscaler_unremovable_nodes_count{reason="NotUnneededLongEnough"} 4\n`);
    const [f] = analyzeSd(w.raw).findings.filter((x) => x.checkId === 'ca-log-disagrees');
    expect(f.message).toContain("CA's metrics count unremovable nodes by reason as");
    expect(f.message).toContain('NotUnneededLongEnough 4');
  });
});

describe('priority-expander-config-invalid when the ConfigMap is absent', () => {
  const args = [...'--v=4 --cloud-provider=aws --expander=priority,least-waste'.split(' '), '--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod'];
  it('is skipped in a dump, which may simply not hold it', () => {
    const w = world({ caArgs: args });
    w.raw.sources = ['dump/pods.json'];
    const { findings, skipped } = analyze(w.raw);
    expect(findings.filter((f) => f.checkId === 'priority-expander-config-invalid')).toEqual([]);
    expect(skipped.find((s) => s.checkId === 'priority-expander-config-invalid')?.detail).toContain(
      'kubectl get configmap -n kube-system cluster-autoscaler-priority-expander -o json',
    );
  });
  it('is a finding live, where casdoctor asked for it by name', () => {
    const w = world({ caArgs: args });
    w.raw.sources = ['live: prod-admin'];
    expect(analyze(w.raw).findings.find((f) => f.checkId === 'priority-expander-config-invalid')?.message).toContain('does not exist');
  });
  it('is skipped with the reason when reading it was forbidden', () => {
    const w = world({ caArgs: args });
    w.raw.sources = ['live: prod-admin'];
    w.raw.gaps.push({ resource: 'configmaps/cluster-autoscaler-priority-expander', scope: 'namespace kube-system', reason: 'forbidden', detail: 'forbidden: get configmaps/cluster-autoscaler-priority-expander' });
    expect(analyze(w.raw).skipped.find((s) => s.checkId === 'priority-expander-config-invalid')?.reason).toBe('forbidden');
  });
});

describe('ca-loop-failing from CA metrics counters', () => {
  it('counts failed scale-ups summed over their GPU labels, and scale-ups skipped for resource limits', () => {
    const raw = withProxy(
      world().raw,
      '/metrics',
      `${METRICS}cluster_autoscaler_skipped_scale_events_count{direction="up",reason="CpuResourceLimit"} 5\ncluster_autoscaler_skipped_scale_events_count{direction="down",reason="MemoryResourceLimit"} 2\n`,
    );
    const fs = findingsOf(raw, 'ca-loop-failing').map((f) => f.message);
    expect(fs).toContain("CA's metrics count 3 failed scale-up(s) since CA started (timeout 3): each backs the group off for up to 30 minutes.");
    expect(fs).toContain("CA's metrics count 5 scale-up(s) CA skipped for cluster resource limits (CpuResourceLimit 5): --cores-total / --memory-total stop it.");
  });
});
