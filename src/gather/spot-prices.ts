// Spot prices from --from: `aws ec2 describe-spot-price-history --output json` ({"SpotPriceHistory": [...]}),
// recognised by content. Rows keep the CLI's shape; the pure price book (simulate/providers/karpenter/pricing.ts) reads
// them. Bounded: at most MAX_SPOT_ROWS rows in all (one region's prices in effect now are about ten thousand).
import type { Ec2SpotPrice } from '../model/aws.js';
import type { RawInputs } from '../model/snapshot.js';

export const MAX_SPOT_ROWS = 200_000;

const isRow = (r: unknown): r is Ec2SpotPrice => {
  if (!r || typeof r !== 'object' || Array.isArray(r)) return false;
  const o = r as Record<string, unknown>;
  return typeof o.InstanceType === 'string' && typeof o.SpotPrice === 'string' && typeof o.Timestamp === 'string' && typeof o.AvailabilityZone === 'string';
};

/** Keeps the well-formed rows of one SpotPriceHistory array (the others are counted in a warning); returns how many. */
export function addSpotPrices(inputs: RawInputs, rows: readonly unknown[], source: string): number {
  const kept = (inputs.spotPriceHistory ??= []);
  const good = rows.filter(isRow);
  const room = Math.max(0, MAX_SPOT_ROWS - kept.length);
  if (good.length > room) inputs.warnings.push(`${source}: more than ${MAX_SPOT_ROWS} spot price records in all; the rest are ignored`);
  if (good.length < rows.length)
    inputs.warnings.push(`${source}: ${rows.length - good.length} SpotPriceHistory record(s) without InstanceType, AvailabilityZone, SpotPrice and Timestamp are ignored`);
  for (const r of good.slice(0, room)) {
    kept.push({
      InstanceType: r.InstanceType,
      AvailabilityZone: r.AvailabilityZone,
      ...(typeof r.AvailabilityZoneId === 'string' ? { AvailabilityZoneId: r.AvailabilityZoneId } : {}),
      ...(typeof r.ProductDescription === 'string' ? { ProductDescription: r.ProductDescription } : {}),
      SpotPrice: r.SpotPrice,
      Timestamp: r.Timestamp,
    });
  }
  (inputs.spotPriceSources ??= []).push(source);
  return rows.length || 1;
}
