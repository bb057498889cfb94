// Karpenter's resources given with --from, recognised by content: NodePools, EC2NodeClasses and NodeClaims as typed
// lists (`kubectl get nodepools -o json`), as items of a kubectl `List` (JSON or YAML), as YAML documents; an empty typed
// list says "none exist"; Karpenter's older APIs (v1beta1, v1alpha5) are refused with the release that converts them;
// `aws ec2 describe-instance-type-offerings` output is read too.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { loadOffline } from '../../src/gather/offline.js';
import type { EC2NodeClass, NodeClaim, NodePool } from '../../src/model/karpenter.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { karpenterOf } from '../../src/simulate/providers/karpenter/inputs.js';
import { STATIC_TYPES } from '../checks/harness.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'karpenter');
const list = <T>(file: string) => (JSON.parse(readFileSync(join(EXAMPLE, file), 'utf8')) as { items: T[] }).items;
const NODEPOOLS = list<NodePool>('nodepools.json');
const NODECLASSES = list<EC2NodeClass>('ec2nodeclasses.json');
const NODECLAIMS = list<NodeClaim>('nodeclaims.json');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-offline-karpenter-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function dir(name: string, files: Record<string, string>): string {
  const d = join(tmp, name);
  mkdirSync(d, { recursive: true });
  for (const [f, content] of Object.entries(files)) writeFileSync(join(d, f), content);
  return d;
}

/** A v1beta1 NodePool as Karpenter v0.37 served it (disruption.consolidateAfter only with WhenEmpty, expireAfter in disruption). */
const V1BETA1_NODEPOOL = {
  apiVersion: 'karpenter.sh/v1beta1',
  kind: 'NodePool',
  metadata: { name: 'default', uid: '4f0e2b7c-1d3a-4c5e-9f60-7a8b9c0d1e2f' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: 'default' },
        requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] }],
      },
    },
    disruption: { consolidationPolicy: 'WhenUnderutilized', expireAfter: '720h' },
    limits: { cpu: '1000' },
  },
};

describe('Karpenter’s resources in --from', () => {
  it('reads the typed lists kubectl prints for NodePools, EC2NodeClasses and NodeClaims, with no warning', async () => {
    const d = dir('typed', {
      'nodepools.json': readFileSync(join(EXAMPLE, 'nodepools.json'), 'utf8'),
      'ec2nodeclasses.json': readFileSync(join(EXAMPLE, 'ec2nodeclasses.json'), 'utf8'),
      'nodeclaims.json': readFileSync(join(EXAMPLE, 'nodeclaims.json'), 'utf8'),
    });
    const raw = await loadOffline([d]);
    expect(raw.nodePools).toEqual(NODEPOOLS);
    expect(raw.ec2NodeClasses).toEqual(NODECLASSES);
    expect(raw.nodeClaims).toEqual(NODECLAIMS);
    expect([...raw.provided].sort()).toEqual(['ec2NodeClasses', 'nodeClaims', 'nodePools']);
    expect(raw.warnings).toEqual([]);
  });

  it('reads them as items of one kubectl List, in JSON and in YAML, whatever the file is named', async () => {
    const items = [NODEPOOLS[0], NODECLASSES[0], NODECLAIMS[0]];
    const doc = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items };
    const d = dir('list', { 'karpenter.json': JSON.stringify(doc), 'dump.yaml': toYaml(doc) });
    for (const file of ['karpenter.json', 'dump.yaml']) {
      const raw = await loadOffline([join(d, file)]);
      expect(raw.nodePools, file).toEqual([NODEPOOLS[0]]);
      expect(raw.ec2NodeClasses, file).toEqual([NODECLASSES[0]]);
      expect(raw.nodeClaims, file).toEqual([NODECLAIMS[0]]);
      expect(raw.warnings, file).toEqual([]);
    }
  });

  it('reads single YAML documents separated by ---, as `kubectl get nodepool general -o yaml` prints them', async () => {
    const text = [NODEPOOLS[1], NODECLASSES[1]].map((o) => toYaml(o)).join('---\n');
    const raw = await loadOffline([join(dir('docs', { 'pool.yaml': text }), 'pool.yaml')]);
    expect(raw.nodePools.map((p) => p.metadata.name)).toEqual([NODEPOOLS[1].metadata.name]);
    expect(raw.ec2NodeClasses.map((c) => c.metadata.name)).toEqual([NODECLASSES[1].metadata.name]);
    expect(raw.nodePools[0].spec.template.spec.requirements).toEqual(NODEPOOLS[1].spec.template.spec.requirements);
  });

  it('gives list items without their own apiVersion the typed list’s, as the API server sends them', async () => {
    const stripped = NODEPOOLS.map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
    const d = dir('stripped', {
      'np.json': JSON.stringify({ apiVersion: 'karpenter.sh/v1', kind: 'NodePoolList', metadata: {}, items: stripped }),
    });
    const raw = await loadOffline([d]);
    expect(raw.nodePools.map((p) => [p.apiVersion, p.kind])).toEqual(NODEPOOLS.map(() => ['karpenter.sh/v1', 'NodePool']));
  });

  it('reads an empty NodePoolList as "there are none" (provided, empty), not as not gathered', async () => {
    const d = dir('empty', {
      'nodepools.json': JSON.stringify({ apiVersion: 'karpenter.sh/v1', kind: 'NodePoolList', metadata: { resourceVersion: '' }, items: [] }),
    });
    const raw = await loadOffline([d]);
    expect(raw.provided.has('nodePools')).toBe(true);
    expect(raw.provided.has('nodeClaims')).toBe(false);
    expect(raw.nodePools).toEqual([]);
    expect(raw.warnings).toEqual([]);
  });

  it('refuses a v1beta1 NodePool with a warning that names Karpenter v1.0 as the release that converts it', async () => {
    const d = dir('v1beta1', {
      'old.json': JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [V1BETA1_NODEPOOL, { ...V1BETA1_NODEPOOL, metadata: { name: 'spot' } }] }),
    });
    const raw = await loadOffline([d]);
    expect(raw.nodePools).toEqual([]);
    expect(raw.provided.has('nodePools')).toBe(false);
    // one line for the file, whatever the count, and no "kind NodePool is not used by casdoctor"
    expect(raw.warnings[0]).toBe(
      `${join(d, 'old.json')}: a NodePool of karpenter.sh/v1beta1 (Karpenter v0.32-v0.37) is not supported: casdoctor reads karpenter.sh/v1, which Karpenter v1.0 serves and converts v1beta1 objects to; upgrade to Karpenter v1.0 or later and dump with \`kubectl get nodepools.karpenter.sh -o json > nodepools.json\`; ignored (and 1 more like this)`,
    );
    expect(raw.warnings.join('\n')).not.toMatch(/not used by casdoctor/);
    // and a gap, so a check that needs NodePools says why it is skipped
    expect(raw.gaps.map((g) => [g.resource, g.reason])).toEqual([['nodepools.karpenter.sh', 'error']]);
    const a = new Analysis(raw, { now: new Date('2026-11-21T10:00:00Z'), staticInstanceTypes: STATIC_TYPES });
    expect(a.missingData(['nodePools'])?.detail).toMatch(/^unsupported: nodepools\.karpenter\.sh: a NodePool of karpenter\.sh\/v1beta1 .* upgrade to Karpenter v1\.0 or later/);
  });

  it('leaves no gap when v1 NodePools are read beside v1beta1 ones (a dump of both versions)', async () => {
    const d = dir('both', {
      'old.json': JSON.stringify(V1BETA1_NODEPOOL),
      'new.json': JSON.stringify(NODEPOOLS[0]),
    });
    const raw = await loadOffline([d]);
    expect(raw.nodePools).toEqual([NODEPOOLS[0]]);
    expect(raw.gaps).toEqual([]);
  });

  it('refuses a v1alpha5 Provisioner, saying it must go through v1beta1 before Karpenter v1', async () => {
    const provisioner = {
      apiVersion: 'karpenter.sh/v1alpha5',
      kind: 'Provisioner',
      metadata: { name: 'default' },
      spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }], providerRef: { name: 'default' } },
    };
    const raw = await loadOffline([join(dir('alpha', { 'p.yaml': toYaml(provisioner) }), 'p.yaml')]);
    expect(raw.nodePools).toEqual([]);
    expect(raw.warnings[0]).toMatch(/: a Karpenter Provisioner \(karpenter\.sh\/v1alpha5, before Karpenter v0\.33\) is not supported: casdoctor reads Karpenter v1 NodePools; migrate to v1beta1 with Karpenter v0\.32, then to v1 with Karpenter v1\.0/);
  });

  it('ignores a v1 NodePool without the template the API requires, with a warning', async () => {
    const broken = { ...NODEPOOLS[0], spec: { limits: { cpu: '100' } } };
    const d = dir('broken', { 'np.json': JSON.stringify(broken) });
    const raw = await loadOffline([d]);
    expect(raw.nodePools).toEqual([]);
    expect(raw.warnings[0]).toBe(`${join(d, 'np.json')}: a NodePool of karpenter.sh/v1 without the spec Karpenter requires; ignored`);
  });

  it('reads `aws ec2 describe-instance-type-offerings --location-type availability-zone` output', async () => {
    const out = {
      InstanceTypeOfferings: [
        { InstanceType: 'm6i.large', LocationType: 'availability-zone', Location: 'us-east-1a' },
        { InstanceType: 'm6i.large', LocationType: 'availability-zone', Location: 'us-east-1b' },
        { InstanceType: 'g5.xlarge', LocationType: 'availability-zone', Location: 'us-east-1b' },
      ],
    };
    const raw = await loadOffline([dir('offerings', { 'offerings.json': JSON.stringify(out, null, 4) })]);
    expect(raw.instanceTypeOfferings).toEqual(out.InstanceTypeOfferings);
    expect(raw.provided.has('instanceTypeOfferings')).toBe(true);
    expect(raw.warnings).toEqual([]);
  });

  it('ignores offerings listed by region (the CLI’s default location type) with a warning naming the flag to add', async () => {
    const out = {
      InstanceTypeOfferings: [
        { InstanceType: 'm6i.large', LocationType: 'region', Location: 'us-east-1' },
        { InstanceType: 'g5.xlarge', LocationType: 'region', Location: 'us-east-1' },
      ],
    };
    const d = dir('by-region', { 'offerings.json': JSON.stringify(out, null, 4) });
    const raw = await loadOffline([d]);
    expect(raw.instanceTypeOfferings).toEqual([]);
    expect(raw.warnings).toEqual([
      `${join(d, 'offerings.json')}: instance type offerings not by availability zone are ignored; dump them with \`aws ec2 describe-instance-type-offerings --location-type availability-zone --output json\``,
    ]);
  });

  it('loads the bundled example as a Karpenter cluster: its NodePools, NodeClasses, NodeClaims and controller settings', async () => {
    const raw = await loadOffline([EXAMPLE]);
    expect(raw.warnings.filter((w) => /NodePool|NodeClaim|EC2NodeClass/.test(w))).toEqual([]);
    const a = new Analysis(raw, { now: new Date('2026-11-21T10:00:00Z'), staticInstanceTypes: STATIC_TYPES });
    const k = karpenterOf(a);
    expect(karpenterOf(a)).toBe(k);
    expect(k.present).toBe(true);
    expect(k.nodePools.map((p) => p.metadata.name).sort()).toEqual(['batch', 'general', 'gpu']);
    expect(k.nodeClasses).toHaveLength(2);
    expect(k.nodeClaims).toHaveLength(6);
    expect(k.zones).toEqual(['us-east-1a', 'us-east-1b']);
    expect(k.settings).toMatchObject({ namespace: 'karpenter', name: 'karpenter', version: '1.6.2', clusterName: 'shop-prod' });
    expect(k.provided).toEqual({ nodePools: true, nodeClasses: true, nodeClaims: true, offerings: false });
    expect(k.offerings).toBeUndefined();
  });

  it('tells a check what to add when the input holds no NodePools', async () => {
    const raw = await loadOffline([join(import.meta.dirname, '..', '..', 'examples', 'karpenter', 'pods.json')]);
    const a = new Analysis(raw, { now: new Date('2026-11-21T10:00:00Z'), staticInstanceTypes: STATIC_TYPES });
    expect(a.missingData(['nodePools'])).toEqual({
      reason: 'not-provided',
      detail: 'no nodepools.karpenter.sh in the input (add `kubectl get nodepools.karpenter.sh -o json > nodepools.json` to the dump)',
    });
    expect(karpenterOf(a).present).toBe(false);
  });
});
