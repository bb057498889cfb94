import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOffline } from '../../src/gather/offline.js';
import { InputError } from '../../src/model/errors.js';
import { asg } from '../builders/aws.js';
import { node, pod } from '../builders/k8s.js';

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'casdoctor-offline-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(d, name, '..'), { recursive: true });
    writeFileSync(join(d, name), text);
  }
  return d;
}

const list = (items: unknown[]) =>
  JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, null, 4);

describe('the offline loader', () => {
  it('recognises kubectl Lists and aws outputs by content, whatever the file names', async () => {
    const d = dir({
      'a.json': list([pod('web-1', 'web').build(), node('ip-10-0-1-5.ec2.internal').build()]),
      'b.txt.json': JSON.stringify({ AutoScalingGroups: [asg('ng-a').build()] }),
      'nested/c.json': JSON.stringify({
        Activities: [{ ActivityId: 'x', AutoScalingGroupName: 'ng-a', StatusCode: 'Successful' }],
      }),
    });
    const r = await loadOffline([d]);
    expect(r.pods.map((p) => p.metadata.name)).toEqual(['web-1']);
    expect(r.nodes.map((n) => n.metadata.name)).toEqual(['ip-10-0-1-5.ec2.internal']);
    expect(r.autoScalingGroups.map((g) => g.AutoScalingGroupName)).toEqual(['ng-a']);
    expect(r.scalingActivities).toHaveLength(1);
    expect([...r.provided].sort()).toEqual(['autoScalingGroups', 'nodes', 'pods', 'scalingActivities']);
    expect(r.warnings).toEqual([]);
  });

  it('reads typed API lists whose items carry no kind (PodList from the API server)', async () => {
    const p = pod('api-1', 'web').build();
    delete (p as { kind?: string }).kind;
    const d = dir({
      'pods.json': JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [p] }),
    });
    const r = await loadOffline([d]);
    expect(r.pods[0].kind).toBe('Pod');
  });

  it('reads multi-document YAML as kubectl -o yaml and helm template print it', async () => {
    const yaml = `apiVersion: v1
kind: Pod
metadata:
  name: a
  namespace: web
spec:
  containers:
  - name: app
    image: nginx
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
`;
    const r = await loadOffline([dir({ 'x.yaml': yaml })]);
    expect(r.pods.map((p) => p.metadata.name)).toEqual(['a']);
    expect(r.nodes.map((p) => p.metadata.name)).toEqual(['n1']);
  });

  it('tells describe-instance-types from get-instance-types-from-instance-requirements', async () => {
    const d = dir({
      'it.json': JSON.stringify({
        InstanceTypes: [
          { InstanceType: 'm5.large', VCpuInfo: { DefaultVCpus: 2 }, MemoryInfo: { SizeInMiB: 8192 } },
        ],
      }),
      'req.json': JSON.stringify({
        InstanceTypes: [{ InstanceType: 'c6i.large' }, { InstanceType: 'c5.large' }],
      }),
    });
    const r = await loadOffline([d]);
    expect(r.instanceTypes.map((t) => t.InstanceType)).toEqual(['m5.large']);
    expect(r.instanceTypesFromRequirements.map((t) => t.InstanceType)).toEqual(['c6i.large', 'c5.large']);
  });

  it('converts events.k8s.io/v1 Events to the core shape', async () => {
    const ev = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: 'web' },
      regarding: { kind: 'Pod', name: 'api-1', namespace: 'web' },
      note: "pod didn't trigger scale-up: 1 max node group size reached",
      reason: 'NotTriggerScaleUp',
      reportingController: 'cluster-autoscaler',
      deprecatedLastTimestamp: '2026-11-21T09:58:00Z',
    };
    const r = await loadOffline([dir({ 'e.json': list([ev]) })]);
    expect(r.events[0].involvedObject.name).toBe('api-1');
    expect(r.events[0].message).toContain('max node group size reached');
  });

  it('keeps one copy of an object that appears in two files (the last read wins)', async () => {
    const a = pod('api-1', 'web').withLabel('v', '1').build();
    const b = pod('api-1', 'web').withLabel('v', '2').build();
    const r = await loadOffline([dir({ '1.json': list([a]), '2.json': list([b]) })]);
    expect(r.pods).toHaveLength(1);
    expect(r.pods[0].metadata.labels?.v).toBe('2');
  });

  it('warns about files it does not recognise and goes on', async () => {
    const r = await loadOffline([
      dir({ 'x.json': JSON.stringify({ hello: 'world' }), 'p.json': list([pod().build()]) }),
    ]);
    expect(r.warnings).toEqual([
      expect.stringContaining('x.json: no Kubernetes object or AWS output casdoctor recognises'),
      // pods alone: said once, as a partial dump, with what to add
      expect.stringMatching(/^the input is pods alone \(1 pod\(s\) of namespace .*Add `kubectl get pods -A -o json`, `kubectl get nodes -o json`/),
    ]);
    expect(r.pods).toHaveLength(1);
  });

  it('stops on malformed JSON with the file, line and column', async () => {
    const d = dir({ 'bad.json': '{\n  "items": [\n    {"kind": "Pod",, }\n  ]\n}\n' });
    const err = await loadOffline([d]).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/bad\.json:3:\d+: malformed JSON/);
  });

  it('stops on malformed YAML with the file and position', async () => {
    const d = dir({ 'bad.yaml': 'kind: Pod\nmetadata:\n  name: [unclosed\n' });
    const err = await loadOffline([d]).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/bad\.yaml:\d+:\d+: malformed YAML/);
  });

  it('says which --from path does not exist', async () => {
    await expect(loadOffline(['/nonexistent/dump'])).rejects.toThrow(
      '--from /nonexistent/dump: no such file or directory',
    );
  });
});

// CA's drain rules look ReplicationControllers up (simulator/drainability/rules/replicacount/rule.go): a dump that
// carries them feeds those rules; kubectl prints an RC list as a `List` of `ReplicationController` items.
describe('ReplicationControllers in a dump', () => {
  const rc = (name: string, replicas: number) => ({
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name, namespace: 'web', uid: `5d0c0f3e-0000-4000-8000-${name.length.toString().padStart(12, '0')}` },
    spec: { replicas, selector: { app: name }, template: { metadata: { labels: { app: name } } } },
    status: { replicas, readyReplicas: replicas },
  });
  it('are recognised by content and marked provided', async () => {
    const raw = await loadOffline([dir({ 'rcs.json': list([rc('legacy-api', 2)]) })]);
    expect(raw.replicationControllers.map((r) => r.metadata.name)).toEqual(['legacy-api']);
    expect(raw.provided.has('replicationControllers')).toBe(true);
  });
});
