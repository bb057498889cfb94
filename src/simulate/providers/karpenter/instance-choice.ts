// "Why this instance type": for a NodeClaim, the AWS provider's launch path replayed over casdoctor's model
// (aws/karpenter-provider-aws pkg/providers/instance/instance.go Create → filterInstanceTypes → Truncate → CreateFleet):
// the NodeClaim's own instance-type list (the scheduler already applied requirements, minValues, limits and DaemonSet
// overhead, ordered by price and cut at 600 from v1.7, 60 before), the launch filters in their order, the capacity type
// (reserved > spot > on-demand), the cut to the 60 cheapest for CreateFleet, the allocation strategy, and the offerings
// Karpenter's log says were unavailable when it launched. Prices come from the price book (pricing.ts), which says
// which and how old. Pure.
import type { KarpenterLogRecord, KarpenterLogSummary } from '../../../model/karpenter-log.js';
import { CAPACITY_TYPE_LABEL, NODEPOOL_LABEL, type EC2NodeClass, type KarpenterDeploymentSettings, type NodeClaim } from '../../../model/karpenter.js';
import { parseGoDuration } from '../../../model/duration.js';
import type { InstanceTypeTable } from '../../instance-types.js';
import { resourceValue } from '../../resources.js';
import { buildKarpenterInstanceTypes, type InstanceTypeOfferingRow, type KarpenterInstanceType, UNMODELLED_INSTANCE_LABELS } from './instance-types.js';
import type { PriceBook } from './pricing.js';
import { compatible, getRequirement, operatorOf, requirementHas, requirementsFrom } from './requirements.js';
import { karpenterVersion } from './versions.js';

const TYPE_LABEL = 'node.kubernetes.io/instance-type';
const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** pkg/providers/instance/instance.go:67@v1.14.1 (also 60 at v1.5.0 and v1.6.x): types sent to CreateFleet. */
export const FLEET_MAX_TYPES = 60;
/** pkg/cache/cache.go:31@v1.14.1: an ICE'd offering stays unavailable this long. */
const ICE_TTL_MS = 3 * 60_000;
const OVERLAY_ANNOTATION = 'karpenter.sh/price-overlay-applied';

export interface InstanceChoiceContext {
  nodeClasses: EC2NodeClass[];
  instanceTypes: InstanceTypeTable;
  settings?: KarpenterDeploymentSettings;
  liveOfferings?: InstanceTypeOfferingRow[];
  region?: string;
  prices: PriceBook;
  logs?: KarpenterLogSummary[];
  now: Date;
}

export interface OfferingPrice {
  capacityType: string;
  zone: string;
  /** Hourly price; undefined when the price book has none (spot without spot prices). */
  price?: number;
  available: boolean;
  /** Why it is unavailable (not offered in the zone, or Karpenter's log marked it). */
  unavailable?: string;
}

export type DropStep = 'unknown-type' | 'compatible-available' | 'reserved' | 'exotic' | 'spot-offering' | 'truncate';

export interface CandidateType {
  name: string;
  /** 1-based position in the NodeClaim's list (the order Karpenter wrote: by price when it computed the NodeClaim). */
  listed: number;
  vcpu?: number;
  memoryMiB?: number;
  onDemand?: number;
  /** Cheapest available offering's price and where (what Truncate orders by). */
  cheapest?: { price: number; capacityType: string; zone: string };
  offerings: OfferingPrice[];
  /** Where the launch path drops it, and why; absent: it went to CreateFleet. */
  dropped?: { step: DropStep; why: string };
  launched: boolean;
}

export interface UnavailableOffering {
  instanceType: string;
  zone: string;
  capacityType: string;
  reason?: string;
  markedAt: string;
  until: string;
  /** 'during-launch': EC2 refused it in this NodeClaim's own CreateFleet; 'before': already unavailable. */
  when: 'before' | 'during-launch';
}

export interface InstanceChoiceExplanation {
  nodeClaim: string;
  nodePool?: string;
  version: { image?: string; core?: string; known: boolean; note?: string };
  launched?: { instanceType: string; zone?: string; capacityType?: string; price?: number; at?: string };
  requests: Record<string, string>;
  /** The NodeClaim's instance-type list: how many, and whether the scheduler's cut (600 / 60) was reached. */
  listed: number;
  listCap: number;
  listFull: boolean;
  allowedCapacityTypes: string[];
  allowedZones: string[];
  /** The capacity type the launch asked for (getCapacityType: reserved, then spot, then on-demand). */
  capacityType?: string;
  allocationStrategy?: string;
  /** Types sent to CreateFleet, cheapest first (at most 60), and how many launch-template overrides (type × zone). */
  fleet: { types: string[]; overrides: number };
  steps: Array<{ step: DropStep | 'list'; remaining: number; dropped: string[]; note?: string }>;
  candidates: CandidateType[];
  unavailable: UnavailableOffering[];
  /** The answer, sentence by sentence. */
  verdict: string[];
  /** What casdoctor could not evaluate, and how to supply it. */
  notEvaluated: string[];
  prices: string[];
}

const cmpVer = (a: string | undefined, b: string): number => {
  const p = (v: string) => (/^v?(\d+)\.(\d+)\.(\d+)/.exec(v) ?? []).slice(1, 4).map(Number);
  if (!a) return 1; // unknown: newest behaviour
  const [x, y] = [p(a), p(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
};

const cond = (nc: NodeClaim, type: string) => nc.status?.conditions?.find((c) => c.type === type);
const isExotic = (it: KarpenterInstanceType) => it.info.gpu > 0 || it.name.split('.')[1]?.includes('metal') === true;

/** Offerings Karpenter's log marked unavailable in the TTL before the launch, or during it. */
export function unavailableAtLaunch(logs: readonly KarpenterLogSummary[], createdAt: number, launchedAt: number): UnavailableOffering[] {
  const out: UnavailableOffering[] = [];
  for (const log of logs) {
    for (const r of log.records) {
      if (r.kind !== 'offering-unavailable' || !r.instanceType || !r.zone || !r.capacityType) continue;
      const ttl = ttlOf(r);
      if (r.time > launchedAt + 5_000 || r.time + ttl < createdAt) continue;
      out.push({
        instanceType: r.instanceType,
        zone: r.zone,
        capacityType: r.capacityType,
        ...(r.reason ? { reason: r.reason } : {}),
        markedAt: new Date(r.time).toISOString(),
        until: new Date(r.time + ttl).toISOString(),
        when: r.time >= createdAt ? 'during-launch' : 'before',
      });
    }
  }
  return out.sort((a, b) => a.markedAt.localeCompare(b.markedAt) || a.instanceType.localeCompare(b.instanceType) || a.zone.localeCompare(b.zone));
}

function ttlOf(r: KarpenterLogRecord): number {
  try {
    return r.ttl ? parseGoDuration(r.ttl) : ICE_TTL_MS;
  } catch {
    return ICE_TTL_MS;
  }
}

function launchRecord(logs: readonly KarpenterLogSummary[], name: string): KarpenterLogRecord | undefined {
  for (const log of logs) for (const r of log.records) if (r.kind === 'launched-nodeclaim' && r.nodeClaim === name) return r;
  return undefined;
}

/** The NodeClaim's type, zone and capacity type as launched: its labels, else Karpenter's "launched nodeclaim" line. */
function launchedOf(nc: NodeClaim, logs: readonly KarpenterLogSummary[]): InstanceChoiceExplanation['launched'] {
  const l = nc.metadata.labels ?? {};
  const rec = launchRecord(logs, nc.metadata.name ?? '');
  const type = cond(nc, 'Launched')?.status === 'True' ? l[TYPE_LABEL] ?? rec?.instanceType : rec?.instanceType;
  if (!type) return undefined;
  const at = cond(nc, 'Launched')?.lastTransitionTime ?? (rec ? new Date(rec.time).toISOString() : undefined);
  const zone = l[ZONE_LABEL] ?? rec?.zone;
  const ct = l[CAPACITY_TYPE_LABEL] ?? rec?.capacityType;
  return { instanceType: type, ...(zone ? { zone } : {}), ...(ct ? { capacityType: ct } : {}), ...(at ? { at } : {}) };
}

export function explainInstanceChoice(nc: NodeClaim, ctx: InstanceChoiceContext): InstanceChoiceExplanation {
  const name = nc.metadata.name ?? '';
  const image = ctx.settings?.version;
  const v = karpenterVersion(image);
  const core = v.core;
  const aws = v.image;
  const reqs = requirementsFrom(nc.spec?.requirements ?? []);
  const typeReq = getRequirement(reqs, TYPE_LABEL);
  const listedNames = operatorOf(typeReq) === 'In' ? (nc.spec?.requirements ?? []).find((r) => r.key === TYPE_LABEL)?.values ?? [] : [];
  const listCap = cmpVer(core, '1.7.0') >= 0 ? 600 : 60;
  const logs = ctx.logs ?? [];
  const launched = launchedOf(nc, logs);
  const createdAt = Date.parse(nc.metadata.creationTimestamp ?? '') || ctx.now.getTime();
  const launchedAt = launched?.at ? Date.parse(launched.at) : createdAt;
  const unavailable = unavailableAtLaunch(logs, createdAt, launchedAt);
  const ctReq = getRequirement(reqs, CAPACITY_TYPE_LABEL);
  const zoneReq = getRequirement(reqs, ZONE_LABEL);
  const allowedCT = ['reserved', 'spot', 'on-demand'].filter((c) => requirementHas(ctReq, c));
  const nodeClass = ctx.nodeClasses.find((c) => c.metadata.name === nc.spec?.nodeClassRef?.name);
  const notEvaluated: string[] = [];
  const out: InstanceChoiceExplanation = {
    nodeClaim: name,
    ...(nc.metadata.labels?.[NODEPOOL_LABEL] ? { nodePool: nc.metadata.labels[NODEPOOL_LABEL] } : {}),
    version: { ...(image ? { image } : {}), ...(core ? { core } : {}), known: v.known, ...(v.note ? { note: v.note } : {}) },
    ...(launched ? { launched } : {}),
    requests: Object.fromEntries(Object.entries(nc.spec?.resources?.requests ?? {}).map(([k, q]) => [k, String(q)])),
    listed: listedNames.length,
    listCap,
    listFull: listedNames.length >= listCap,
    allowedCapacityTypes: allowedCT,
    allowedZones: operatorOf(zoneReq) === 'In' ? [...zoneReq.values].sort() : [],
    fleet: { types: [], overrides: 0 },
    steps: [],
    candidates: [],
    unavailable,
    verdict: [],
    notEvaluated,
    prices: ctx.prices.describe(),
  };
  if (listedNames.length === 0) {
    notEvaluated.push(`NodeClaim ${name} names no instance types (no ${TYPE_LABEL} In [...] requirement): a static NodePool's NodeClaim, or one written by hand; its type was chosen by the cloud provider from the NodePool alone`);
    return out;
  }
  if (!nodeClass) notEvaluated.push(`its EC2NodeClass ${nc.spec?.nodeClassRef?.name ?? '?'} is not in the input: zones come from the NodeClaim's requirements only (add \`kubectl get ec2nodeclasses -o json\`)`);
  for (const key of reqs.keys()) if (UNMODELLED_INSTANCE_LABELS.has(key)) notEvaluated.push(`the requirement on ${key} is not evaluated: casdoctor's instance-type table has no such attribute`);

  const { cands, all } = candidatesOf(nc, listedNames, launched, unavailable, ctx, nodeClass);
  out.candidates = cands;
  const requests = Object.entries(nc.spec?.resources?.requests ?? {}).map(([k, q]) => [k, resourceValue(k, q as string)] as const);
  out.steps.push({ step: 'list', remaining: cands.length, dropped: [], ...(out.listFull ? { note: `the scheduler's cut at ${listCap}: more types fitted` } : {}) });
  let alive = cands.filter((c) => !c.dropped);
  const drop = (step: DropStep, gone: CandidateType[], why: (c: CandidateType) => string, note?: string) => {
    for (const c of gone) c.dropped = { step, why: why(c) };
    out.steps.push({ step, remaining: alive.length - gone.length, dropped: gone.map((c) => c.name), ...(note ? { note } : {}) });
    alive = alive.filter((c) => !gone.includes(c));
  };
  out.steps.push({ step: 'unknown-type', remaining: alive.length, dropped: cands.filter((c) => c.dropped?.step === 'unknown-type').map((c) => c.name) });

  // CompatibleAvailableFilter (filter.go@v1.14.1): requirements, requests fit allocatable, a compatible available offering
  const incompatible = alive.filter((c) => {
    const it = all.get(c.name)!;
    if (compatible(reqs, it.requirements) !== undefined) return true;
    if (requests.some(([k, n]) => n > (it.allocatable[k] ?? 0))) return true;
    return !c.offerings.some((o) => o.available);
  });
  drop('compatible-available', incompatible, (c) => {
    const it = all.get(c.name)!;
    const err = compatible(reqs, it.requirements);
    if (err) return `incompatible: ${err}`;
    const short = requests.find(([k, n]) => n > (it.allocatable[k] ?? 0));
    if (short) return `too small for the NodeClaim's requests (${short[0]})`;
    return c.offerings.length ? 'no available offering (every allowed zone and capacity type is unavailable)' : 'no offering in the allowed zones and capacity types';
  });
  // ReservedOfferingFilter (filter.go@v1.14.1; filterRejectReservedInstanceTypes before v1.6): with reserved allowed and a
  // reservation available, only the types that have one go on (one launch is reserved, or not at all)
  if (requirementHas(ctReq, 'reserved')) {
    const hasReserved = (c: CandidateType) => c.offerings.some((o) => o.available && o.capacityType === 'reserved');
    if (alive.some(hasReserved)) drop('reserved', alive.filter((c) => !hasReserved(c)), () => 'no available capacity reservation: a reserved launch takes only reserved offerings (reserved-offering-filter)');
  }
  const minValues = (nc.spec?.requirements ?? []).some((r) => r.minValues !== undefined);
  const from16 = cmpVer(aws, '1.6.0') >= 0;

  // ExoticInstanceTypeFilter: GPUs, accelerators and metal only when nothing else is left (never with minValues)
  if (!minValues) {
    const exotic = alive.filter((c) => isExotic(all.get(c.name)!));
    drop('exotic', exotic.length < alive.length ? exotic : [], () => 'GPU or metal type: Karpenter keeps them only when no other type is left (exotic-instance-filter)');
  }
  // SpotOfferingFilter: with spot and on-demand allowed, spot offerings dearer than the cheapest on-demand one go
  if (!minValues && requirementHas(ctReq, 'spot') && requirementHas(ctReq, 'on-demand')) {
    const avail = alive.flatMap((c) => c.offerings.filter((o) => o.available));
    const ods = avail.filter((o) => o.capacityType === 'on-demand' && o.price !== undefined).map((o) => o.price!);
    if (!ctx.prices.hasSpot && avail.some((o) => o.capacityType === 'spot')) {
      out.steps.push({ step: 'spot-offering', remaining: alive.length, dropped: [], note: 'not evaluated: without spot prices casdoctor cannot tell which spot offerings cost more than the cheapest on-demand one' });
    } else if (ods.length > 0 && avail.some((o) => o.capacityType === 'spot')) {
      const cheapestOD = Math.min(...ods);
      const gone: CandidateType[] = [];
      for (const c of alive) {
        // v1.6+: per offering; before: a type whose cheapest available offering is dearer (instance.go:592-616@v1.5.0)
        const dear = (o: OfferingPrice) => o.capacityType === 'spot' && o.price !== undefined && o.price > cheapestOD;
        if (from16) {
          for (const o of c.offerings) if (dear(o)) Object.assign(o, { available: false, unavailable: `spot dearer than the cheapest on-demand offering ($${cheapestOD})` });
          if (!c.offerings.some((o) => o.available)) gone.push(c);
        } else {
          const min = Math.min(...c.offerings.filter((o) => o.available && o.price !== undefined).map((o) => o.price!));
          if (min > cheapestOD) gone.push(c);
        }
      }
      drop('spot-offering', gone, () => 'its spot offerings cost more than the cheapest on-demand offering (spot-offering-filter)');
    }
  }
  // getCapacityType (instance.go:745-759@v1.14.1): reserved, then spot, then on-demand, by available offerings
  const capacityType = ['reserved', 'spot'].find((ct) => requirementHas(ctReq, ct) && alive.some((c) => c.offerings.some((o) => o.available && o.capacityType === ct))) ?? 'on-demand';
  out.capacityType = capacityType;
  // Truncate: order by the cheapest available offering (across the allowed capacity types), keep 60
  for (const c of alive) {
    const priced = c.offerings.filter((o) => o.available && o.price !== undefined).sort((a, b) => a.price! - b.price! || a.zone.localeCompare(b.zone));
    if (priced[0]) c.cheapest = { price: priced[0].price!, capacityType: priced[0].capacityType, zone: priced[0].zone };
  }
  const ordered = [...alive].sort((a, b) => (a.cheapest?.price ?? Infinity) - (b.cheapest?.price ?? Infinity) || a.listed - b.listed);
  const sent = ordered.slice(0, FLEET_MAX_TYPES);
  alive = ordered;
  drop('truncate', ordered.slice(FLEET_MAX_TYPES), () => `not among the ${FLEET_MAX_TYPES} cheapest: the AWS provider sends at most ${FLEET_MAX_TYPES} types to CreateFleet`);
  out.fleet = {
    types: sent.map((c) => c.name),
    overrides: sent.reduce((n, c) => n + c.offerings.filter((o) => o.available && o.capacityType === capacityType).length, 0),
  };
  const overlay = cmpVer(core, '1.7.0') >= 0 && nc.metadata.annotations?.[OVERLAY_ANNOTATION] === 'true';
  out.allocationStrategy =
    capacityType === 'spot' ? (overlay ? 'capacity-optimized-prioritized' : 'price-capacity-optimized') : overlay ? 'prioritized' : 'lowest-price';
  out.verdict = verdict(out, sent, capacityType, overlay, ctx.prices.hasSpot);
  return out;
}

const typeCache = new WeakMap<InstanceChoiceContext, Map<string, Map<string, KarpenterInstanceType>>>();

/** The provider's instance types with their offerings (subnet zones, EC2's offerings), built once per NodeClass. */
function instanceTypesFor(ctx: InstanceChoiceContext, nodeClass: EC2NodeClass | undefined): Map<string, KarpenterInstanceType> {
  let byClass = typeCache.get(ctx);
  if (!byClass) typeCache.set(ctx, (byClass = new Map()));
  const key = nodeClass?.metadata.name ?? '';
  let all = byClass.get(key);
  if (!all) {
    all = new Map(
      buildKarpenterInstanceTypes(ctx.instanceTypes, {
        ...(nodeClass ? { nodeClass } : {}),
        ...(ctx.settings ? { settings: ctx.settings } : {}),
        ...(ctx.region ? { region: ctx.region } : {}),
        ...(ctx.liveOfferings ? { liveOfferings: ctx.liveOfferings } : {}),
      }).map((it) => [it.name, it]),
    );
    byClass.set(key, all);
  }
  return all;
}

/** The NodeClaim's listed types with their offerings in the allowed zones and capacity types, priced. */
function candidatesOf(
  nc: NodeClaim,
  listedNames: readonly string[],
  launched: InstanceChoiceExplanation['launched'],
  unavailable: readonly UnavailableOffering[],
  ctx: InstanceChoiceContext,
  nodeClass: EC2NodeClass | undefined,
): { cands: CandidateType[]; all: Map<string, KarpenterInstanceType> } {
  const reqs = requirementsFrom(nc.spec?.requirements ?? []);
  const ctReq = getRequirement(reqs, CAPACITY_TYPE_LABEL);
  const zoneReq = getRequirement(reqs, ZONE_LABEL);
  // the provider's instance types with their offerings, as Karpenter would resolve them (subnet zones, EC2's offerings)
  const all = instanceTypesFor(ctx, nodeClass);
  const iceBefore = new Set(unavailable.filter((u) => u.when === 'before').map((u) => `${u.instanceType}|${u.zone}|${u.capacityType}`));
  const priceOf = (type: string, ct: string, zone: string): number | undefined => {
    if (ct === 'on-demand') return ctx.prices.onDemand(type);
    if (ct === 'spot') return ctx.prices.hasSpot ? ctx.prices.spot(type, zone)?.price : undefined;
    // reserved: on-demand / 10,000,000, "free" but still ordered (offering/reserved_capacity_resolver.go:73-79@v1.14.1)
    const od = ctx.prices.onDemand(type);
    return od === undefined ? 0 : od / 10_000_000;
  };
  const cands: CandidateType[] = listedNames.map((t, i) => {
    const it = all.get(t);
    const c: CandidateType = { name: t, listed: i + 1, offerings: [], launched: launched?.instanceType === t };
    if (!it) {
      c.dropped = { step: 'unknown-type', why: `casdoctor's instance-type table does not know ${t} (or EC2 does not offer it in the NodeClass' zones)` };
      return c;
    }
    c.vcpu = it.info.vcpu;
    c.memoryMiB = it.info.memoryMiB;
    const od = ctx.prices.onDemand(t);
    if (od !== undefined) c.onDemand = od;
    for (const o of it.offerings) {
      if (!requirementHas(ctReq, o.capacityType) || !requirementHas(zoneReq, o.zone)) continue;
      const ice = iceBefore.has(`${t}|${o.zone}|${o.capacityType}`);
      const price = priceOf(t, o.capacityType, o.zone);
      c.offerings.push({
        capacityType: o.capacityType,
        zone: o.zone,
        ...(price !== undefined ? { price } : {}),
        available: o.available && !ice,
        ...(!o.available ? { unavailable: 'not offered in the zone' } : ice ? { unavailable: 'marked unavailable in Karpenter\'s log' } : {}),
      });
    }
    return c;
  });
  return { cands, all };
}

function verdict(x: InstanceChoiceExplanation, sent: CandidateType[], ct: string, overlay: boolean, hasSpot: boolean): string[] {
  const v: string[] = [];
  const l = x.launched;
  const pool = (c: CandidateType) => c.offerings.filter((o) => o.available && o.capacityType === ct);
  const money = (p: number | undefined) => (p === undefined ? '?' : `$${Number(p.toFixed(4))}`);
  if (sent.length === 0) {
    v.push(`No instance type of the NodeClaim's ${x.listed} survives the launch filters: Karpenter would fail the launch with "all requested instance types were unavailable during launch" (InsufficientCapacityError).`);
    return v;
  }
  v.push(`Karpenter sends ${sent.length} type(s) (${x.fleet.overrides} type×zone pools) to CreateFleet as ${ct}, allocation strategy ${x.allocationStrategy}.`);
  if (overlay) v.push('A NodeOverlay adjusted prices (annotation karpenter.sh/price-overlay-applied): EC2 takes the pools in the priority order Karpenter gives (the adjusted prices), not by its own price.');
  const byPrice = sent
    .flatMap((c) => pool(c).map((o) => ({ c, o })))
    .filter((p) => p.o.price !== undefined)
    .sort((a, b) => a.o.price! - b.o.price! || a.c.listed - b.c.listed || a.o.zone.localeCompare(b.o.zone));
  const cheapest = byPrice[0];
  if (ct === 'spot' && !overlay) {
    v.push(
      hasSpot && cheapest
        ? `For spot, EC2's price-capacity-optimized strategy picks among the lowest-priced pools the one with the most spare capacity, by pool depth, not price: the cheapest pool is ${cheapest.c.name} in ${cheapest.o.zone} at ${money(cheapest.o.price)}, but EC2 may choose any of the low-priced ones; casdoctor cannot see pool depth.`
        : "For spot, EC2's price-capacity-optimized strategy picks by pool depth among the lowest-priced pools, not by price alone; without spot prices casdoctor cannot rank the pools.",
    );
  } else if (cheapest) {
    const ties = byPrice.filter((p) => p.o.price === cheapest.o.price).map((p) => `${p.c.name} in ${p.o.zone}`);
    v.push(`For ${ct}, the lowest-price strategy takes the cheapest pool: ${ties.length > 1 ? `one of ${ties.join(', ')} (equal price: EC2 may pick either)` : `${cheapest.c.name} in ${cheapest.o.zone}`} at ${money(cheapest.o.price)}.`);
  }
  if (!l) {
    v.push('The NodeClaim has not launched yet: nothing to compare.');
    return v;
  }
  const got = x.candidates.find((c) => c.name === l.instanceType);
  const gotPrice = got?.offerings.find((o) => o.capacityType === l.capacityType && o.zone === l.zone)?.price;
  if (l.capacityType && l.capacityType !== ct) {
    v.push(`It launched as ${l.capacityType}, not ${ct}: ${l.capacityType === 'on-demand' && ct === 'spot' ? 'every spot offering was refused at launch (see the unavailable offerings) and a later attempt fell back to on-demand' : 'the offerings casdoctor sees are not those Karpenter saw at launch'}.`);
  }
  const inPool = byPrice.some((p) => p.c.name === l.instanceType && p.o.zone === l.zone);
  const cheaper = gotPrice === undefined ? [] : byPrice.filter((p) => p.o.price! < gotPrice);
  const ties = gotPrice === undefined ? [] : byPrice.filter((p) => p.o.price === gotPrice && !(p.c.name === l.instanceType && p.o.zone === l.zone));
  const during = x.unavailable.filter((u) => u.when === 'during-launch');
  const tieText = ties.length ? `; ${ties.map((p) => `${p.c.name}/${p.o.zone}`).join(', ')} cost the same (EC2 may pick either)` : '';
  const pools = sent.flatMap((c) => pool(c).map((o) => `${c.name}/${o.zone}`));
  if (!got?.dropped && pools.length === 1 && pools[0] === `${l.instanceType}/${l.zone}`) {
    v.push(`It launched ${l.instanceType} in ${l.zone ?? '?'}${gotPrice !== undefined ? ` at ${money(gotPrice)}` : ''}: the only pool Karpenter offered EC2, so no choice was made at launch (the NodeClaim's requirements had already narrowed it to one type and zone).`);
    return v;
  }
  if (got?.dropped) v.push(`It launched ${l.instanceType}, which casdoctor's replay drops (${got.dropped.why}): Karpenter's prices or offerings at launch differed from the ones casdoctor holds.`);
  else if (inPool && cheaper.length === 0) v.push(`It launched ${l.instanceType} in ${l.zone ?? '?'} at ${money(gotPrice)}: the cheapest pool, as expected${tieText}.`);
  else if (inPool) {
    const names = cheaper.map((p) => `${p.c.name}/${p.o.zone}`);
    const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? ` and ${names.length - 5} more` : '');
    v.push(`It launched ${l.instanceType} in ${l.zone ?? '?'} at ${money(gotPrice)}, not the cheapest: ${cheaper.length} of ${byPrice.length} pools cost less (${shown})${tieText}.`);
    const refused = during.filter((u) => cheaper.some((p) => p.c.name === u.instanceType && p.o.zone === u.zone && u.capacityType === ct));
    if (refused.length) v.push(`EC2 refused ${refused.map((u) => `${u.instanceType}/${u.zone}${u.reason ? ` (${u.reason})` : ''}`).join(', ')} in this very launch, so the fleet fell back to the next pool; Karpenter keeps them unavailable until ${refused[refused.length - 1].until.slice(11, 19)} UTC.`);
    if (refused.length < cheaper.length) {
      v.push(
        ct === 'spot' && !overlay
          ? 'With price-capacity-optimized that is expected: EC2 weighs spare capacity over price.'
          : "For the other cheaper pools: Karpenter's own prices may differ from casdoctor's (it refreshes them from AWS every 12h), or EC2 had no capacity there without an ICE line in the log casdoctor read.",
      );
    }
  } else if (gotPrice === undefined) v.push(`It launched ${l.instanceType}${l.zone ? ` in ${l.zone}` : ''}; casdoctor has no price for that pool.`);
  return v;
}
