// "Why this instance type": the AWS provider's launch path replayed for a NodeClaim (filters, capacity type, the cut to
// 60 for CreateFleet, the allocation strategy), the offerings Karpenter's log marked unavailable, and the prices used.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EC2NodeClass, NodeClaim } from '../../../../src/model/karpenter.js';
import { karpenterSettingsFromEnv } from '../../../../src/model/karpenter.js';
import type { KarpenterLogSummary } from '../../../../src/model/karpenter-log.js';
import { buildInstanceTypeTable, type StaticInstanceTypeData } from '../../../../src/simulate/instance-types.js';
import { explainInstanceChoice, unavailableAtLaunch, type InstanceChoiceContext } from '../../../../src/simulate/providers/karpenter/instance-choice.js';
import { createKarpenterLogParser } from '../../../../src/simulate/providers/karpenter/log/index.js';
import { buildPriceBook, type OnDemandPriceData, type SpotPriceRow } from '../../../../src/simulate/providers/karpenter/pricing.js';

const json = <T>(rel: string) => JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as T;
const staticTypes = json<StaticInstanceTypeData>('../../../../data/instance-types.json');
const priceData = json<OnDemandPriceData>('../../../../data/prices-on-demand.json');
const nodeClasses = json<{ items: EC2NodeClass[] }>('../../../../examples/karpenter/ec2nodeclasses.json').items; // subnets in us-east-1a, us-east-1b
const table = buildInstanceTypeTable(staticTypes, [], { flags: { awsUseStaticInstanceList: { value: true, origin: 'default', supported: true } } } as never);
const NOW = new Date('2026-11-24T14:00:00Z');

const settings = (version: string) =>
  karpenterSettingsFromEnv({ CLUSTER_NAME: 'shop-prod' }, { version, image: `public.ecr.aws/karpenter/controller:${version}` });

function ctx(over: Partial<InstanceChoiceContext> = {}, spotRows?: SpotPriceRow[]): InstanceChoiceContext {
  return {
    nodeClasses,
    instanceTypes: table,
    settings: settings('1.14.1'),
    region: 'us-east-1',
    prices: buildPriceBook({ data: priceData, region: 'us-east-1', now: NOW, ...(spotRows ? { spotRows, spotFrom: ['spot.json'] } : {}) }),
    now: NOW,
    ...over,
  };
}

const req = (key: string, operator: string, values?: string[], minValues?: number) => ({ key, operator, ...(values ? { values } : {}), ...(minValues ? { minValues } : {}) });

/** A NodeClaim as the API server serves it after launch: Karpenter's list in spec.requirements, the launched type in its labels. */
function nodeClaim(o: {
  name: string;
  types: string[];
  capacityTypes: string[];
  launched?: { type: string; zone: string; capacityType: string };
  created?: string;
  launchedAt?: string;
  annotations?: Record<string, string>;
}): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name: o.name,
      creationTimestamp: o.created ?? '2026-11-24T13:20:38Z',
      labels: {
        'karpenter.sh/nodepool': 'general',
        ...(o.launched
          ? { 'node.kubernetes.io/instance-type': o.launched.type, 'topology.kubernetes.io/zone': o.launched.zone, 'karpenter.sh/capacity-type': o.launched.capacityType }
          : {}),
      },
      annotations: { 'karpenter.sh/nodepool-hash-version': 'v3', ...(o.annotations ?? {}) },
    },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [
        req('karpenter.sh/nodepool', 'In', ['general']),
        req('kubernetes.io/arch', 'In', ['amd64']),
        req('node.kubernetes.io/instance-type', 'In', o.types),
        req('karpenter.sh/capacity-type', 'In', o.capacityTypes),
        req('topology.kubernetes.io/zone', 'In', ['us-east-1a', 'us-east-1b']),
      ],
      resources: { requests: { cpu: '2750m', memory: '9Gi', pods: '7' } },
    },
    status: {
      conditions: o.launched ? [{ type: 'Launched', status: 'True', reason: 'Launched', message: '', lastTransitionTime: o.launchedAt ?? '2026-11-24T13:20:42Z' }] : [],
    },
  } as NodeClaim;
}

/** Karpenter's controller log (zap JSON lines), parsed by casdoctor's own parser. */
function log(lines: object[]): KarpenterLogSummary {
  const p = createKarpenterLogParser({ source: { kind: 'text', name: 'karpenter.log' } });
  for (const l of lines) p.push(JSON.stringify(l));
  return p.finish();
}
const removing = (time: string, type: string, zone: string, capacityType: string) => ({
  level: 'DEBUG',
  time,
  logger: 'controller',
  caller: 'cache/unavailableofferings.go:144',
  message: 'removing offering from offerings',
  commit: '1d927085',
  controller: 'nodeclaim.lifecycle',
  NodeClaim: { name: 'general-7hq2x' },
  reason: 'InsufficientInstanceCapacity',
  'instance-type': type,
  zone,
  'capacity-type': capacityType,
  ttl: '3m0s',
});

// in Karpenter's order: by the cheapest offering (us-east-1 on-demand: m6a 0.1728, m5 = m6i 0.192, m7i 0.2016, r6i 0.252, m5.2xlarge 0.384, g4dn 0.526)
const LIST = ['m6a.xlarge', 'm5.xlarge', 'm6i.xlarge', 'm7i.xlarge', 'r6i.xlarge', 'm5.2xlarge', 'g4dn.xlarge'];

describe('explainInstanceChoice: on-demand', () => {
  const nc = nodeClaim({ name: 'general-7hq2x', types: LIST, capacityTypes: ['on-demand'], launched: { type: 'm6i.xlarge', zone: 'us-east-1b', capacityType: 'on-demand' } });
  const logs = [
    log([
      // m5.xlarge in us-east-1a was refused a minute before this NodeClaim: still unavailable when it launched
      removing('2026-11-24T13:19:31.204Z', 'm5.xlarge', 'us-east-1a', 'on-demand'),
      // this launch's own CreateFleet: the two cheapest pools had no capacity
      removing('2026-11-24T13:20:41.512Z', 'm6a.xlarge', 'us-east-1a', 'on-demand'),
      removing('2026-11-24T13:20:41.513Z', 'm6a.xlarge', 'us-east-1b', 'on-demand'),
      // long expired by then
      removing('2026-11-24T12:00:00.000Z', 'm6i.xlarge', 'us-east-1b', 'on-demand'),
    ]),
  ];
  const x = explainInstanceChoice(nc, ctx({ logs }));

  it('replays the launch filters in order: the GPU type goes (exotic), the rest go to CreateFleet cheapest first', () => {
    expect(x.steps.map((s) => [s.step, s.remaining, s.dropped])).toEqual([
      ['list', 7, []],
      ['unknown-type', 7, []],
      ['compatible-available', 7, []],
      ['exotic', 6, ['g4dn.xlarge']],
      ['truncate', 6, []],
    ]);
    expect(x.capacityType).toBe('on-demand');
    expect(x.allocationStrategy).toBe('lowest-price');
    expect(x.fleet.types).toEqual(['m6a.xlarge', 'm5.xlarge', 'm6i.xlarge', 'm7i.xlarge', 'r6i.xlarge', 'm5.2xlarge']);
    // m5.xlarge in us-east-1a was unavailable: 6 types × 2 zones − 1
    expect(x.fleet.overrides).toBe(11);
    expect(x.listed).toBe(7);
    expect(x.listCap).toBe(600);
    expect(x.listFull).toBe(false);
  });

  it("reads the unavailable offerings at launch from Karpenter's log: before the NodeClaim and during its launch, not expired ones", () => {
    expect(x.unavailable.map((u) => [u.instanceType, u.zone, u.when, u.until])).toEqual([
      ['m5.xlarge', 'us-east-1a', 'before', '2026-11-24T13:22:31.204Z'],
      ['m6a.xlarge', 'us-east-1a', 'during-launch', '2026-11-24T13:23:41.512Z'],
      ['m6a.xlarge', 'us-east-1b', 'during-launch', '2026-11-24T13:23:41.513Z'],
    ]);
    const m5 = x.candidates.find((c) => c.name === 'm5.xlarge')!;
    expect(m5.offerings.find((o) => o.zone === 'us-east-1a')).toMatchObject({ available: false, unavailable: "marked unavailable in Karpenter's log" });
  });

  it('explains the fallback: not the cheapest pool because EC2 refused the cheaper ones in this launch, and names the equal-priced pool', () => {
    expect(x.launched).toEqual({ instanceType: 'm6i.xlarge', zone: 'us-east-1b', capacityType: 'on-demand', at: '2026-11-24T13:20:42Z' });
    expect(x.verdict).toEqual([
      'Karpenter sends 6 type(s) (11 type×zone pools) to CreateFleet as on-demand, allocation strategy lowest-price.',
      'For on-demand, the lowest-price strategy takes the cheapest pool: one of m6a.xlarge in us-east-1a, m6a.xlarge in us-east-1b (equal price: EC2 may pick either) at $0.1728.',
      'It launched m6i.xlarge in us-east-1b at $0.192, not the cheapest: 2 of 11 pools cost less (m6a.xlarge/us-east-1a, m6a.xlarge/us-east-1b); m5.xlarge/us-east-1b, m6i.xlarge/us-east-1a cost the same (EC2 may pick either).',
      'EC2 refused m6a.xlarge/us-east-1a (InsufficientInstanceCapacity), m6a.xlarge/us-east-1b (InsufficientInstanceCapacity) in this very launch, so the fleet fell back to the next pool; Karpenter keeps them unavailable until 13:23:41 UTC.',
    ]);
  });

  it('says which prices it used and how old they are', () => {
    expect(x.prices[0]).toMatch(/^On-demand prices: us-east-1's table, generated 2026-\d\d-\d\d, \d+ day\(s\) old/);
    expect(x.prices[1]).toMatch(/^Spot prices: not supplied/);
  });
});

describe('explainInstanceChoice: spot', () => {
  const spot: SpotPriceRow[] = [
    { AvailabilityZone: 'us-east-1a', InstanceType: 'm6a.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.0712', Timestamp: '2026-11-24T09:00:00+00:00' },
    { AvailabilityZone: 'us-east-1b', InstanceType: 'm6a.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.0744', Timestamp: '2026-11-24T09:00:00+00:00' },
    { AvailabilityZone: 'us-east-1a', InstanceType: 'm5.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.0861', Timestamp: '2026-11-24T09:00:00+00:00' },
    { AvailabilityZone: 'us-east-1b', InstanceType: 'm5.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.0803', Timestamp: '2026-11-24T09:00:00+00:00' },
    { AvailabilityZone: 'us-east-1a', InstanceType: 'm6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.0899', Timestamp: '2026-11-24T09:00:00+00:00' },
    { AvailabilityZone: 'us-east-1b', InstanceType: 'm6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.0921', Timestamp: '2026-11-24T09:00:00+00:00' },
    // a spot price above the cheapest on-demand ($0.1728): that offering is filtered out
    { AvailabilityZone: 'us-east-1a', InstanceType: 'r6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.1811', Timestamp: '2026-11-24T09:00:00+00:00' },
    { AvailabilityZone: 'us-east-1b', InstanceType: 'r6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.1102', Timestamp: '2026-11-24T09:00:00+00:00' },
  ];
  const types = ['m6a.xlarge', 'm5.xlarge', 'm6i.xlarge', 'r6i.xlarge'];

  it('asks for spot (spot before on-demand), drops spot offerings dearer than the cheapest on-demand one, and says PCO picks by pool depth', () => {
    const nc = nodeClaim({ name: 'general-q8rnm', types, capacityTypes: ['on-demand', 'spot'], launched: { type: 'm6i.xlarge', zone: 'us-east-1a', capacityType: 'spot' } });
    const x = explainInstanceChoice(nc, ctx({}, spot));
    expect(x.capacityType).toBe('spot');
    expect(x.allocationStrategy).toBe('price-capacity-optimized');
    const r6i = x.candidates.find((c) => c.name === 'r6i.xlarge')!;
    expect(r6i.offerings.find((o) => o.capacityType === 'spot' && o.zone === 'us-east-1a')).toMatchObject({ available: false, unavailable: 'spot dearer than the cheapest on-demand offering ($0.1728)' });
    expect(x.fleet.overrides).toBe(7);
    expect(x.verdict[1]).toBe(
      "For spot, EC2's price-capacity-optimized strategy picks among the lowest-priced pools the one with the most spare capacity, by pool depth, not price: the cheapest pool is m6a.xlarge in us-east-1a at $0.0712, but EC2 may choose any of the low-priced ones; casdoctor cannot see pool depth.",
    );
    expect(x.verdict.at(-1)).toBe('With price-capacity-optimized that is expected: EC2 weighs spare capacity over price.');
  });

  it('without spot prices does not pretend to rank spot pools, and says the spot filter was not evaluated', () => {
    const nc = nodeClaim({ name: 'general-q8rnm', types, capacityTypes: ['on-demand', 'spot'], launched: { type: 'm6i.xlarge', zone: 'us-east-1a', capacityType: 'spot' } });
    const x = explainInstanceChoice(nc, ctx());
    expect(x.steps.find((s) => s.step === 'spot-offering')?.note).toMatch(/^not evaluated: without spot prices/);
    expect(x.verdict[1]).toMatch(/without spot prices casdoctor cannot rank the pools/);
  });

  it('with a NodeOverlay price adjustment (v1.7+) the strategy is capacity-optimized-prioritized', () => {
    const nc = nodeClaim({ name: 'general-q8rnm', types, capacityTypes: ['spot'], annotations: { 'karpenter.sh/price-overlay-applied': 'true' } });
    expect(explainInstanceChoice(nc, ctx({}, spot)).allocationStrategy).toBe('capacity-optimized-prioritized');
    // v1.6 has no NodeOverlay: the annotation cannot have come from it
    expect(explainInstanceChoice(nc, ctx({ settings: settings('1.6.2') }, spot)).allocationStrategy).toBe('price-capacity-optimized');
  });
});

describe('explainInstanceChoice: reserved capacity', () => {
  it('asks for reserved first when an open reservation fits (it costs on-demand / 10,000,000), and CreateFleet gets only its pool', () => {
    const withODCR: EC2NodeClass = structuredClone(nodeClasses.find((c) => c.metadata.name === 'default')!);
    withODCR.status = {
      ...withODCR.status,
      capacityReservations: [
        { id: 'cr-0a1b2c3d4e5f60718', instanceType: 'm6i.xlarge', availabilityZone: 'us-east-1a', instanceMatchCriteria: 'targeted', ownerID: '444455556666', reservationType: 'default', state: 'active' },
      ],
    };
    const nc = nodeClaim({ name: 'general-r3srv', types: ['m6a.xlarge', 'm6i.xlarge'], capacityTypes: ['reserved', 'on-demand'] });
    const x = explainInstanceChoice(nc, ctx({ nodeClasses: [withODCR] }));
    expect(x.capacityType).toBe('reserved');
    expect(x.allocationStrategy).toBe('lowest-price');
    expect(x.fleet.overrides).toBe(1);
    const m6i = x.candidates.find((c) => c.name === 'm6i.xlarge')!;
    expect(m6i.cheapest).toEqual({ price: 0.192 / 10_000_000, capacityType: 'reserved', zone: 'us-east-1a' });
    // a reserved launch takes only the types with a reservation
    expect(x.fleet.types).toEqual(['m6i.xlarge']);
    expect(x.steps.find((st) => st.step === 'reserved')?.dropped).toEqual(['m6a.xlarge']);
  });
});

describe('explainInstanceChoice: versions and missing data', () => {
  it("knows the scheduler's cut: 60 types in the NodeClaim before v1.7, 600 from it", () => {
    const sixty = [...table.names()].filter((n) => /^(m|c|r)[5-7][a-z]*\.(x|2x|4x)large$/.test(n)).slice(0, 60);
    expect(sixty).toHaveLength(60);
    const nc = nodeClaim({ name: 'general-big', types: sixty, capacityTypes: ['on-demand'] });
    const old = explainInstanceChoice(nc, ctx({ settings: settings('1.6.2') }));
    expect([old.listCap, old.listFull]).toEqual([60, true]);
    expect(old.steps[0].note).toContain("the scheduler's cut at 60: more types fitted");
    const now = explainInstanceChoice(nc, ctx());
    expect([now.listCap, now.listFull]).toEqual([600, false]);
    expect(now.verdict.at(-1)).toBe('The NodeClaim has not launched yet: nothing to compare.');
  });

  it('a NodeClaim without an instance-type list is not evaluated, and says why', () => {
    const nc = nodeClaim({ name: 'static-abc12', types: [], capacityTypes: ['on-demand'] });
    nc.spec.requirements = nc.spec.requirements.filter((r) => r.key !== 'node.kubernetes.io/instance-type');
    const x = explainInstanceChoice(nc, ctx());
    expect(x.candidates).toEqual([]);
    expect(x.notEvaluated[0]).toMatch(/names no instance types/);
  });

  it('a type casdoctor does not know is named, not silently dropped', () => {
    const nc = nodeClaim({ name: 'general-new', types: ['m6a.xlarge', 'm9z.xlarge'], capacityTypes: ['on-demand'] });
    const x = explainInstanceChoice(nc, ctx());
    expect(x.candidates[1].dropped?.step).toBe('unknown-type');
    expect(x.fleet.types).toEqual(['m6a.xlarge']);
  });
});

describe('unavailableAtLaunch', () => {
  it('keeps what was unavailable in the TTL before creation up to the launch, by its own ttl', () => {
    const l = log([
      { ...removing('2026-11-24T13:00:00Z', 'c6i.large', 'us-east-1a', 'spot'), ttl: '30m0s' },
      removing('2026-11-24T13:00:00Z', 'c6i.large', 'us-east-1b', 'spot'),
      removing('2026-11-24T13:31:00Z', 'c6i.large', 'us-east-1b', 'spot'),
    ]);
    const got = unavailableAtLaunch([l], Date.parse('2026-11-24T13:20:00Z'), Date.parse('2026-11-24T13:21:00Z'));
    expect(got.map((u) => [u.zone, u.when, u.until])).toEqual([['us-east-1a', 'before', '2026-11-24T13:30:00.000Z']]);
  });
});
