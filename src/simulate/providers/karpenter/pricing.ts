// The prices Karpenter's AWS provider orders instance types by: on-demand per region and type, spot per type and zone
// (aws/karpenter-provider-aws pkg/providers/pricing/pricing.go). On-demand comes from casdoctor's bundled table
// (data/prices-on-demand.json, derived from the static tables Karpenter itself starts with); spot from
// ec2:DescribeSpotPriceHistory rows (live, or `aws ec2 describe-spot-price-history --output json` in --from). Karpenter
// refreshes both every 12h (pkg/controllers/providers/pricing/controller.go:59@v1.14.1). Every answer carries where its
// prices came from and how old they are. Pure.

import type { Ec2SpotPrice } from '../../../model/aws.js';

/** data/prices-on-demand.json as the caller loads it (scripts/gen-prices.mjs). */
export interface OnDemandPriceData {
  source: string;
  /** The karpenter-provider-aws tag the tables were taken from. */
  tag: string;
  generatedAt: string;
  regions: Record<string, { currency: string; generatedAt: string; file?: string; prices: Record<string, number> }>;
}

/** One row of ec2:DescribeSpotPriceHistory, as `aws ec2 describe-spot-price-history --output json` prints it. */
export type SpotPriceRow = Ec2SpotPrice;

/** pricing.go UpdateSpotPricing: the only product descriptions Karpenter asks for. */
export const KARPENTER_SPOT_PRODUCTS: readonly string[] = ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'];

/** Where a price came from, for the answer's "prices used" line. */
export interface PriceProvenance {
  onDemand: {
    /** The table's region: the run's region, or us-east-1 when the bundle has none for it (as Karpenter falls back). */
    table?: string;
    region?: string;
    fallback: boolean;
    currency?: string;
    /** When the table was generated (Karpenter's codegen time). */
    generatedAt?: string;
    /** Days between generatedAt and now. */
    ageDays?: number;
    tag: string;
  };
  spot?: {
    rows: number;
    /** Distinct (type, zone) prices kept. */
    offerings: number;
    /** Oldest and newest price change among the prices kept (a spot price holds from its Timestamp until it changes). */
    oldest?: string;
    newest?: string;
    /** Where the rows came from ("live ec2:DescribeSpotPriceHistory", file paths). */
    from: string[];
  };
}

export interface PriceBook {
  region?: string;
  /** Hourly on-demand price, or undefined when the table has no price for the type. */
  onDemand(type: string): number | undefined;
  /** Hourly spot price in the zone (the newest at or before `now`), or undefined when no row gives one. */
  spot(type: string, zone: string): { price: number; since: string } | undefined;
  /** True when spot rows were supplied at all (else spot prices are unknown, not missing for one type). */
  hasSpot: boolean;
  provenance: PriceProvenance;
  /** The sentences that say which prices were used and how old they are. */
  describe(): string[];
}

const DAY_MS = 86_400_000;

function days(from: string | undefined, now: Date): number | undefined {
  const t = from ? Date.parse(from) : Number.NaN;
  return Number.isFinite(t) ? Math.max(0, Math.floor((now.getTime() - t) / DAY_MS)) : undefined;
}

/** "$0.096" / "¥1.013": four significant decimals at most, trailing zeros dropped. */
export function formatPrice(p: number | undefined, currency = 'USD'): string {
  if (p === undefined) return '?';
  const s = p.toFixed(4).replace(/0+$/, '').replace(/\.$/, '.00');
  const padded = /\.\d$/.test(s) ? `${s}0` : s;
  return `${currency === 'CNY' ? '¥' : '$'}${padded}`;
}

/**
 * Builds the price book for a region at `now`. Spot rows of other product descriptions (Windows, SUSE…) and rows
 * dated after `now` are left out; among a (type, zone)'s rows the newest wins (EC2 answers StartTime=now with the
 * price in effect then, which is what Karpenter keeps).
 */
export function buildPriceBook(opts: {
  data: OnDemandPriceData;
  region?: string;
  spotRows?: readonly SpotPriceRow[];
  spotFrom?: string[];
  now: Date;
}): PriceBook {
  const { data, region, now } = opts;
  // pricing.go Reset: a region without a static table starts from us-east-1's
  const own = region ? data.regions[region] : undefined;
  const tableRegion = own ? region : data.regions['us-east-1'] ? 'us-east-1' : undefined;
  const table = tableRegion ? data.regions[tableRegion] : undefined;
  const spot = new Map<string, { price: number; since: string; t: number }>();
  let rowsKept = 0;
  for (const r of opts.spotRows ?? []) {
    if (!r || typeof r.InstanceType !== 'string' || typeof r.AvailabilityZone !== 'string') continue;
    if (r.ProductDescription !== undefined && !KARPENTER_SPOT_PRODUCTS.includes(r.ProductDescription)) continue;
    const price = Number.parseFloat(r.SpotPrice);
    const t = Date.parse(r.Timestamp);
    // pricing.go spotPage: an unparsable price or a record without a timestamp is ignored
    if (!Number.isFinite(price) || !Number.isFinite(t) || t > now.getTime()) continue;
    rowsKept++;
    const key = `${r.InstanceType}\u0000${r.AvailabilityZone}`;
    const have = spot.get(key);
    if (!have || t > have.t) spot.set(key, { price, since: new Date(t).toISOString(), t });
  }
  let oldest: number | undefined;
  let newest: number | undefined;
  for (const v of spot.values()) {
    oldest = oldest === undefined || v.t < oldest ? v.t : oldest;
    newest = newest === undefined || v.t > newest ? v.t : newest;
  }
  const provenance: PriceProvenance = {
    onDemand: {
      ...(tableRegion ? { table: tableRegion } : {}),
      ...(region ? { region } : {}),
      fallback: Boolean(region && !own && tableRegion),
      ...(table ? { currency: table.currency, generatedAt: table.generatedAt } : {}),
      ...(table && days(table.generatedAt, now) !== undefined ? { ageDays: days(table.generatedAt, now) } : {}),
      tag: data.tag,
    },
    ...(opts.spotRows
      ? {
          spot: {
            rows: rowsKept,
            offerings: spot.size,
            ...(oldest !== undefined ? { oldest: new Date(oldest).toISOString() } : {}),
            ...(newest !== undefined ? { newest: new Date(newest).toISOString() } : {}),
            from: opts.spotFrom ?? [],
          },
        }
      : {}),
  };
  return {
    ...(region ? { region } : {}),
    onDemand: (type) => table?.prices[type],
    spot: (type, zone) => {
      const v = spot.get(`${type}\u0000${zone}`);
      return v ? { price: v.price, since: v.since } : undefined;
    },
    hasSpot: spot.size > 0,
    provenance,
    describe: () => describeProvenance(provenance),
  };
}

function describeProvenance(p: PriceProvenance): string[] {
  const out: string[] = [];
  const od = p.onDemand;
  if (!od.table) out.push('On-demand prices: none (casdoctor\'s bundled table has no us-east-1 prices).');
  else {
    const age = od.ageDays !== undefined ? `, ${od.ageDays} day(s) old` : '';
    const where = od.fallback
      ? `${od.table}'s table (none is bundled for ${od.region}; Karpenter starts from us-east-1's too, then asks the Pricing API)`
      : `${od.table}'s table`;
    out.push(
      `On-demand prices: ${where}, generated ${od.generatedAt?.slice(0, 10) ?? '?'}${age}, from Karpenter's AWS provider ${od.tag}; Karpenter refreshes its own from the Pricing API every 12h, so its figures may differ.`,
    );
  }
  const s = p.spot;
  if (!s || s.offerings === 0) {
    out.push(
      "Spot prices: not supplied, so spot offerings are not ordered by price. Live, casdoctor reads ec2:DescribeSpotPriceHistory (allow the action); offline, add `aws ec2 describe-spot-price-history --start-time $(date -u +%FT%TZ) --product-descriptions Linux/UNIX 'Linux/UNIX (Amazon VPC)' --output json` to --from.",
    );
  } else {
    out.push(
      `Spot prices: ${s.offerings} type×zone prices from ${s.from.length ? s.from.join(', ') : 'ec2:DescribeSpotPriceHistory'}, in effect since ${s.oldest?.slice(0, 16).replace('T', ' ')}–${s.newest?.slice(0, 16).replace('T', ' ')} UTC (a spot price holds until it changes); Karpenter refreshes its own every 12h.`,
    );
  }
  return out;
}
