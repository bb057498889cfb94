// The provider seam, proven: a provider that lives only in test/providers/fixtures (its own module, registered with
// registerProvider, no file of src/ edited) lists the groups, builds the templates and speaks every sentence that
// why-pending, its checks and the node-group audit print on a tiny dump, and no other provider's words leak through.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAudit } from '../../src/commands/audit.js';
import type { AsgAuditOptions } from '../../src/commands/asg-audit.js';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { providerById, registerProvider } from '../../src/providers/index.js';
import { capturingDeps, PIPED_JSON } from '../commands/in-process.js';
import { STUB_CONFIGMAP, stubProvider } from './fixtures/stub-provider.js';

const NOW = '2026-11-28T12:00:00Z';
const list = (items: unknown[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

const caDeployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'cluster-autoscaler', namespace: 'kube-system', uid: '3c1f6a52-2b7e-4f0e-9a63-0d3f5c7e1a01' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'cluster-autoscaler' } },
    template: {
      metadata: { labels: { app: 'cluster-autoscaler' } },
      spec: {
        containers: [
          {
            name: 'cluster-autoscaler',
            image: 'registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.1',
            command: ['./cluster-autoscaler', '--cloud-provider=stub', '--expander=least-waste'],
          },
        ],
      },
    },
  },
  status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
};

const node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'small-1',
    uid: '7d2b1c04-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
    labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': 'small-1', pool: 'small' },
    creationTimestamp: '2026-11-28T08:00:00Z',
  },
  spec: { providerID: 'stub://small/i-1' },
  status: {
    capacity: { cpu: '2', memory: '8Gi', pods: '110' },
    allocatable: { cpu: '2', memory: '8Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-28T08:01:00Z' }],
  },
};

const pendingPod = (name: string, uid: string, cpu: string, nodeSelector?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'web', uid, creationTimestamp: '2026-11-28T11:50:00Z' },
  spec: {
    ...(nodeSelector ? { nodeSelector } : {}),
    containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu, memory: '1Gi' } } }],
  },
  status: {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: '0/1 nodes are available: 1 Insufficient cpu.',
        lastTransitionTime: '2026-11-28T11:50:01Z',
      },
    ],
  },
});

const groups = [
  { name: 'small', minSize: 1, maxSize: 3, targetSize: 1, labels: { pool: 'small' }, capacity: { cpu: '2', memory: '8Gi' } },
  { name: 'big', minSize: 0, maxSize: 2, targetSize: 2, labels: { pool: 'big' }, capacity: { cpu: '8', memory: '32Gi' } },
];

let dir: string;
let unregister: () => void;
beforeAll(() => {
  unregister = registerProvider(stubProvider);
  dir = mkdtempSync(join(tmpdir(), 'casdoctor-stub-provider-'));
  writeFileSync(join(dir, 'deployments.json'), list([caDeployment]));
  writeFileSync(join(dir, 'nodes.json'), list([node]));
  writeFileSync(
    join(dir, 'pods.json'),
    list([
      pendingPod('wide-0', 'a0c1e2f3-0000-4000-8000-000000000001', '4'),
      pendingPod('gpu-0', 'a0c1e2f3-0000-4000-8000-000000000002', '1', { pool: 'gpu' }),
    ]),
  );
  writeFileSync(
    join(dir, 'configmaps-kube-system.json'),
    list([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: STUB_CONFIGMAP, namespace: 'kube-system', uid: '5b6c7d8e-1111-4222-8333-444455556666' },
        data: { 'groups.json': JSON.stringify(groups) },
      },
    ]),
  );
});
afterAll(() => {
  unregister();
  rmSync(dir, { recursive: true, force: true });
});

async function whyPending(output: 'json' | 'table'): Promise<string> {
  const c = capturingDeps({ realNow: () => new Date(NOW) });
  await runWhyPending({ ...PIPED_JSON, now: NOW, from: [dir], all: true, output } as WhyPendingOptions, c.deps);
  return c.stdout();
}

/** Words only AWS or externalgrpc may print. */
const FOREIGN = /\bASG\b|Auto Scaling|launch template|DesiredCapacity|desired capacity|nodeTemplate|externalgrpc|instanceParameter|aws /;

describe('a provider registered from outside src/', () => {
  it('is the provider CA runs with, and unregisters', () => {
    expect(providerById('stub')).toBe(stubProvider);
    expect(() => registerProvider(stubProvider)).toThrow(/registered already/);
  });

  it("lists its groups and decides why-pending with its templates: the big group at max size, in the provider's words", async () => {
    const report = JSON.parse(await whyPending('json'));
    const wide = report.pods.find((p: { name: string }) => p.name === 'wide-0');
    expect(wide.verdict).toBe('no-scale-up');
    const byName = Object.fromEntries(wide.nodeGroups.map((g: { name: string }) => [g.name, g]));
    expect(Object.keys(byName).sort()).toEqual(['big', 'small']);
    expect(JSON.stringify(byName.big)).toContain('stub target 2 >= max size 2');
    expect(JSON.stringify(byName.small)).toMatch(/Insufficient cpu/);
  });

  it('prints none of the other providers\' words in why-pending, its findings and fixes', async () => {
    const text = await whyPending('table');
    expect(text).toContain('gpu-0');
    expect(text).toContain('fix: If big, small is meant for this pod, stub: set the label in ConfigMap kube-system/stub-node-groups');
    expect(text).toContain('Pod web/wide-0: fits the stub group template of big');
    expect(text).not.toMatch(FOREIGN);
    expect(await whyPending('json')).not.toMatch(FOREIGN);
  });

  it("runs the node-group audit, not the ASG audit, and names the provider's source", async () => {
    const c = capturingDeps({ realNow: () => new Date(NOW) });
    await runAudit({ ...PIPED_JSON, now: NOW, from: [dir], output: 'table' } as AsgAuditOptions, c.deps, 'node-group-audit');
    const text = c.stdout();
    expect(text).toContain(`stub groups from ConfigMap kube-system/${STUB_CONFIGMAP}`);
    expect(text).toMatch(/\bbig\b/);
    expect(text).not.toMatch(FOREIGN);
  });
});
