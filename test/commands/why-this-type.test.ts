// casdoctor why-this-type, in process: examples/karpenter plus what a user adds for the question — a NodeClaim that
// fell back after InsufficientInstanceCapacity (`kubectl get nodeclaims -o json`), Karpenter's log at debug level
// (`kubectl logs`); the example's own spot-prices.json (`aws ec2 describe-spot-price-history --output json`) and
// karpenter.log are read beside them — all recognised by content.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveNodeClaim, runWhyThisType } from '../../src/commands/why-this-type.js';
import { InputError } from '../../src/model/errors.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { ROOT } from './run.js';

const NOW = '2026-11-24T14:00:00Z';
const req = (key: string, operator: string, values: string[]) => ({ key, operator, values });
// in Karpenter's order: by price (us-east-1 on-demand), the NodePool's families and sizes that hold 2750m and 9Gi
const LIST = ['m6a.xlarge', 'm6i.xlarge', 'm7i.xlarge', 'r6i.xlarge', 'c6a.2xlarge', 'c6i.2xlarge', 'm6a.2xlarge', 'm6i.2xlarge', 'm7i.2xlarge', 'r6i.2xlarge'];

const fellBack = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: {
    annotations: { 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4', 'karpenter.sh/nodepool-hash-version': 'v3' },
    creationTimestamp: '2026-11-24T13:20:38Z',
    finalizers: ['karpenter.sh/termination'],
    generateName: 'general-',
    generation: 1,
    labels: {
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'karpenter.sh/capacity-type': 'on-demand',
      'karpenter.sh/nodepool': 'general',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'linux',
      'node.kubernetes.io/instance-type': 'm6i.xlarge',
      'topology.kubernetes.io/region': 'us-east-1',
      'topology.kubernetes.io/zone': 'us-east-1b',
    },
    name: 'general-7hq2x',
    ownerReferences: [{ apiVersion: 'karpenter.sh/v1', blockOwnerDeletion: true, kind: 'NodePool', name: 'general', uid: '361f82d3-c265-46ed-84e8-ffe1c65f8488' }],
    resourceVersion: '7731904',
    uid: '5b0f3c1e-8a27-4d1b-9e55-0c7a2f61d4b8',
  },
  spec: {
    expireAfter: '720h',
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    requirements: [
      req('karpenter.k8s.aws/ec2nodeclass', 'In', ['default']),
      req('karpenter.k8s.aws/instance-family', 'In', ['c6a', 'c6i', 'm6a', 'm6i', 'm7i', 'r6i']),
      req('karpenter.k8s.aws/instance-size', 'In', ['2xlarge', 'xlarge']),
      req('karpenter.sh/capacity-type', 'In', ['on-demand']),
      req('karpenter.sh/nodepool', 'In', ['general']),
      req('kubernetes.io/arch', 'In', ['amd64']),
      req('kubernetes.io/os', 'In', ['linux']),
      req('node.kubernetes.io/instance-type', 'In', LIST),
      req('topology.kubernetes.io/zone', 'In', ['us-east-1a', 'us-east-1b']),
    ],
    resources: { requests: { cpu: '2750m', memory: '9Gi', pods: '7' } },
  },
  status: {
    conditions: [{ lastTransitionTime: '2026-11-24T13:20:42Z', message: '', observedGeneration: 1, reason: 'Launched', status: 'True', type: 'Launched' }],
    nodeName: 'ip-10-20-12-199.ec2.internal',
    providerID: 'aws:///us-east-1b/i-0a4c7e91d2f3b5068',
  },
};

const line = (time: string, level: string, message: string, extra: object) =>
  JSON.stringify({ level, time, logger: 'controller', message, commit: '1d927085', controller: 'nodeclaim.lifecycle', controllerGroup: 'karpenter.sh', controllerKind: 'NodeClaim', NodeClaim: { name: 'general-7hq2x' }, ...extra });
const removing = (time: string, type: string, zone: string) =>
  line(time, 'DEBUG', 'removing offering from offerings', { reason: 'InsufficientInstanceCapacity', 'instance-type': type, zone, 'capacity-type': 'on-demand', ttl: '3m0s' });
const LOG = [
  removing('2026-11-24T13:20:41.512Z', 'm6a.xlarge', 'us-east-1a'),
  removing('2026-11-24T13:20:41.513Z', 'm6a.xlarge', 'us-east-1b'),
  line('2026-11-24T13:20:42.104Z', 'INFO', 'launched nodeclaim', { 'provider-id': 'aws:///us-east-1b/i-0a4c7e91d2f3b5068', 'instance-type': 'm6i.xlarge', zone: 'us-east-1b', 'capacity-type': 'on-demand' }),
].join('\n');

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'casdoctor-why-type-'));
  cpSync(join(ROOT, 'examples', 'karpenter'), dir, { recursive: true });
  writeFileSync(join(dir, 'nodeclaim-general-7hq2x.json'), `${JSON.stringify(fellBack, null, 4)}\n`);
  writeFileSync(join(dir, 'karpenter-controller.log'), `${LOG}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(extra: Record<string, unknown>, output = 'json') {
  const c = capturingDeps({ realNow: () => new Date(NOW) });
  const r = await runWhyThisType({ ...PIPED_JSON, output: output as never, from: [dir], now: NOW, ...extra }, c.deps);
  return { code: r.exitCode, out: c.stdout(), err: c.stderr() };
}

describe('why-this-type', () => {
  it('explains a launch that hit InsufficientInstanceCapacity and fell back, in JSON', async () => {
    const { code, out } = await run({ nodeclaim: 'nodeclaim/general-7hq2x' });
    expect(code).toBe(0);
    const doc = JSON.parse(out);
    expect(doc).toMatchObject({ schemaVersion: 1, command: 'why-this-type', now: '2026-11-24T14:00:00.000Z', karpenter: { version: '1.6.2', present: true } });
    expect(doc.nodeClaims).toHaveLength(1);
    const x = doc.nodeClaims[0];
    expect(x).toMatchObject({ nodeClaim: 'general-7hq2x', nodePool: 'general', capacityType: 'on-demand', allocationStrategy: 'lowest-price', listed: 10, listCap: 60, listFull: false });
    expect(x.fleet.types).toEqual(LIST);
    expect(x.unavailable.map((u: { instanceType: string; zone: string; when: string }) => `${u.instanceType}/${u.zone}/${u.when}`)).toEqual([
      'm6a.xlarge/us-east-1a/during-launch',
      'm6a.xlarge/us-east-1b/during-launch',
    ]);
    // docs/why-this-type.md quotes these two
    expect(x.verdict.slice(2)).toEqual([
      'It launched m6i.xlarge in us-east-1b at $0.192, not the cheapest: 2 of 20 pools cost less (m6a.xlarge/us-east-1a, m6a.xlarge/us-east-1b); m6i.xlarge/us-east-1a cost the same (EC2 may pick either).',
      'EC2 refused m6a.xlarge/us-east-1a (InsufficientInstanceCapacity), m6a.xlarge/us-east-1b (InsufficientInstanceCapacity) in this very launch, so the fleet fell back to the next pool; Karpenter keeps them unavailable until 13:23:41 UTC.',
    ]);
    expect(doc.prices.onDemand).toMatchObject({ table: 'us-east-1', fallback: false, tag: 'v1.14.1' });
    expect(doc.prices.spot).toMatchObject({ offerings: 6, from: [join(dir, 'spot-prices.json')] });
  });

  it('finds the NodeClaim by the node it became, and prints its launch path, candidates and the offerings refused', async () => {
    const { out } = await run({ nodeclaim: 'ip-10-20-12-199.ec2.internal' }, 'table');
    expect(out).toContain('NodeClaim general-7hq2x (NodePool general): launched m6i.xlarge in us-east-1b as on-demand at 2026-11-24T13:20:42Z');
    expect(out).toMatch(/cheapest 60 to CreateFleet +10 +-/);
    expect(out).toMatch(/m6a\.xlarge +4\/16Gi +\$0\.1728 +\$0\.1728 on-demand us-east-1a +fleet/);
    expect(out).toContain('m6a.xlarge us-east-1a on-demand InsufficientInstanceCapacity: marked 13:20:41, unavailable until 13:23:41 UTC (refused during this launch)');
    expect(out).toContain('Spot prices: 6 type×zone prices from');
    // the log was read: no "not evaluated" line about it
    expect(out).not.toContain("Karpenter's log: not in --from");
  });

  it('lists every NodeClaim with its type, price and why, with spot prices where given', async () => {
    const { out } = await run({}, 'table');
    expect(out).toMatch(/general-7hq2x +general +m6i\.xlarge +us-east-1b +on-demand +\$0\.192 +10→10 +fell back \(ICE\)/);
    expect(out).toMatch(/general-9xw2f +general +c6i\.2xlarge +us-east-1b +spot +\$0\.1419 +1→1 +only choice/);
    expect(out).toMatch(/general-tq8vb +general +r6i\.large +us-east-1a +spot +\$0\.0517/);
  });

  it('narrows to a NodePool, and names the NodePools when it has none of that name', async () => {
    const doc = JSON.parse((await run({ nodepool: 'batch' })).out);
    expect(doc.nodeClaims.map((x: { nodeClaim: string }) => x.nodeClaim)).toEqual(['batch-h6kpj', 'batch-rz5nc']);
    await expect(run({ nodepool: 'gpu-pool' })).rejects.toThrow(/NodePool gpu-pool not found; NodePools: batch, general, gpu/);
  });

  it('on a cluster without Karpenter says there is nothing to explain, and exits 0', async () => {
    const c = capturingDeps({ realNow: () => new Date(NOW) });
    const r = await runWhyThisType({ ...PIPED_JSON, output: 'table', from: [join(ROOT, 'examples', 'demo')], now: '2026-11-21T10:00:00Z' }, c.deps);
    expect(r.exitCode).toBe(0);
    expect(c.stdout()).toContain('casdoctor why-this-type · no Karpenter · now 2026-11-21T10:00:00.000Z');
    expect(c.stdout()).toContain('No Karpenter in the input (no NodePool, EC2NodeClass, NodeClaim or Karpenter Deployment): nothing to explain.');
    expect(c.stdout()).not.toContain('Prices');
  });

  it('says which NodeClaims exist when the one asked for is not there', () => {
    expect(() => resolveNodeClaim('nodeclaim/general-zzzzz', [fellBack as never])).toThrow(InputError);
    expect(() => resolveNodeClaim('general-zzzzz', [fellBack as never])).toThrow('NodeClaim general-zzzzz not found; NodeClaims: general-7hq2x');
  });
});
