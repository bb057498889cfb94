// The offline loader's edge check: a dump with values of the wrong type loads with a warning naming the file, object and
// field, and the analysis only ever sees the types the Kubernetes and AWS APIs define.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOffline } from '../../src/gather/offline.js';
import { fitToShape } from '../../src/gather/shape.js';
import type { AutoScalingGroup } from '../../src/model/aws.js';
import type { Pod } from '../../src/model/k8s.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dump(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'casdoctor-shape-'));
  dirs.push(dir);
  for (const [name, doc] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(doc));
  return dir;
}

const pod = (name: string, spec: unknown) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'web', labels: { app: 'api' } },
  spec,
  status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
});

describe('the offline loader fits dumps to the API types', () => {
  it('drops a wrong-typed field and a null list entry, keeps the object, and names both in one warning per file', async () => {
    const dir = dump({
      'pods.json': {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          pod('api-1', {
            containers: [{ name: 'api', resources: { requests: { cpu: '1', memory: ['1Gi'] } } }, null],
            tolerations: 5,
            nodeSelector: { 'node-pool': 'general', broken: 7 },
          }),
        ],
      },
    });
    const got = await loadOffline([dir]);
    const p = got.pods[0] as Pod;
    expect(p.spec.tolerations).toBeUndefined();
    expect(p.spec.containers).toEqual([{ name: 'api', resources: { requests: { cpu: '1' } } }]);
    expect(p.spec.nodeSelector).toEqual({ 'node-pool': 'general' });
    expect(got.warnings).toEqual([
      // in the order the fields appear in the file
      `${join(dir, 'pods.json')}: 4 value(s) of the wrong type ignored (Pod web/api-1: spec.containers[0].resources.requests.memory: expected a quantity, got a list; Pod web/api-1: spec.containers[1]: expected an object, got null; Pod web/api-1: spec.tolerations: expected a list, got number; ...)`,
      // a dump of pods alone says what it cannot tell (the loader's partial-input rule), after the file's own warning
      "the input is pods alone (1 pod(s) of namespace web, as `kubectl get pods -n web -o json` prints), without the cluster around them: whether they fit a node and what CA does for them are not evaluated. Add `kubectl get pods -A -o json`, `kubectl get nodes -o json`, the workloads and CA's Deployment (`casdoctor snapshot` writes them all)",
    ]);
  });

  it('ignores an object that cannot be used at all: a Pod without a spec, an ASG without a name, a tag without a key', async () => {
    const dir = dump({
      'pods.json': { apiVersion: 'v1', kind: 'List', items: [pod('ok', { containers: [] }), pod('bad', 'spec')] },
      'asgs.json': {
        AutoScalingGroups: [
          { AutoScalingGroupName: 42, MinSize: 0, MaxSize: 1, DesiredCapacity: 0 },
          {
            AutoScalingGroupName: 'ng-a',
            MinSize: 0,
            MaxSize: 3,
            DesiredCapacity: 1,
            Tags: [{ Key: 'k8s.io/cluster-autoscaler/enabled', Value: 'true' }, { Value: 'orphan' }],
          },
        ],
      },
    });
    const got = await loadOffline([dir]);
    expect(got.pods.map((p) => p.metadata.name)).toEqual(['ok']);
    expect(got.autoScalingGroups.map((g: AutoScalingGroup) => [g.AutoScalingGroupName, g.Tags?.length])).toEqual([
      ['ng-a', 1],
    ]);
    expect(got.provided.has('pods')).toBe(true);
    expect(got.warnings.join('\n')).toContain('Pod web/bad: spec: expected an object, got string; Pod web/bad: no valid spec; ignored');
    expect(got.warnings.join('\n')).toContain('AutoScalingGroups[0]: no valid AutoScalingGroupName; ignored');
    expect(got.warnings.join('\n')).toContain('AutoScalingGroups[1].Tags[1]: no valid Key; ignored');
  });

  it('keeps well-formed objects exactly as they are, nulls the API itself prints included', () => {
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'web', creationTimestamp: null },
      involvedObject: { kind: 'Pod', name: 'api-1', namespace: 'web' },
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: '2026-11-21T09:59:22.000000Z',
      reason: 'FailedScheduling',
      count: 3,
    };
    const copy = structuredClone(event);
    const problems: string[] = [];
    expect(fitToShape('events', copy, problems)).toBe(copy);
    expect(copy).toEqual(event);
    expect(problems).toEqual([]);
  });

  it('reads an empty typed list as "there are none" and treats a kind named like an Object method as unknown', async () => {
    const dir = dump({
      'pdbs.json': { apiVersion: 'policy/v1', kind: 'PodDisruptionBudgetList', items: [], metadata: {} },
      'odd.json': { apiVersion: 'v1', kind: 'List', items: [{ kind: 'constructor', metadata: { name: 'x' } }] },
      'empty.json': { apiVersion: 'v1', kind: 'List', items: [], metadata: {} },
    });
    const got = await loadOffline([dir]);
    expect([...got.provided]).toEqual(['pdbs']);
    expect(got.warnings).toEqual([
      `${join(dir, 'odd.json')}: kind constructor is not used by casdoctor; ignored`,
      `${join(dir, 'odd.json')}: no Kubernetes object or AWS output casdoctor recognises; ignored`,
    ]);
  });
});

describe('preferred node affinity (Karpenter requires the heaviest preferred term first: requirements.go:95-101@v1.6.2)', () => {
  it('survives the why-pending projection, with its weight and expressions', () => {
    const preferred = [{ weight: 100, preference: { matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] } }];
    const p = pod('api-0', { containers: [{ name: 'api', image: 'api:1' }], affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } } });
    const problems: string[] = [];
    const out = fitToShape('pods', structuredClone(p), problems, '', true, 'why-pending') as unknown as Pod;
    expect(problems).toEqual([]);
    expect(out.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution).toEqual(preferred);
  });
});
