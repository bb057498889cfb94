// The price book: data/prices-on-demand.json as Karpenter's static tables give it, spot rows as
// `aws ec2 describe-spot-price-history --output json` prints them, and the sentences that say which prices and how old.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildPriceBook, formatPrice, type OnDemandPriceData, type SpotPriceRow } from '../../../../src/simulate/providers/karpenter/pricing.js';

const data = JSON.parse(readFileSync(new URL('../../../../data/prices-on-demand.json', import.meta.url), 'utf8')) as OnDemandPriceData;
const NOW = new Date('2026-11-24T14:00:00Z');

// the shape the AWS CLI v2 prints (Timestamp with an offset), newest first as EC2 answers
const rows: SpotPriceRow[] = [
  { AvailabilityZone: 'us-east-1a', InstanceType: 'm6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.071200', Timestamp: '2026-11-24T13:42:09+00:00' },
  { AvailabilityZone: 'us-east-1a', InstanceType: 'm6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.069800', Timestamp: '2026-11-24T07:10:51+00:00' },
  { AvailabilityZone: 'us-east-1b', InstanceType: 'm6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.083100', Timestamp: '2026-11-23T22:03:17+00:00' },
  { AvailabilityZone: 'us-east-1a', InstanceType: 'm6i.xlarge', ProductDescription: 'Windows', SpotPrice: '0.251000', Timestamp: '2026-11-24T13:50:00+00:00' },
  // after --now: not yet in effect
  { AvailabilityZone: 'us-east-1b', InstanceType: 'm6i.xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '0.010000', Timestamp: '2026-11-24T15:00:00+00:00' },
  { AvailabilityZone: 'us-east-1c', InstanceType: 'm5.large', ProductDescription: 'Linux/UNIX (Amazon VPC)', SpotPrice: 'n/a', Timestamp: '2026-11-24T10:00:00+00:00' },
];

describe('the bundled on-demand table', () => {
  it('holds us-east-1 (the table Karpenter falls back to) with the public on-demand prices and its generation date', () => {
    expect(data.tag).toMatch(/^v\d+\.\d+\.\d+$/);
    const east = data.regions['us-east-1'];
    expect(east.currency).toBe('USD');
    expect(east.generatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(east.prices['m5.large']).toBe(0.096);
    expect(east.prices['m6i.xlarge']).toBe(0.192);
    expect(Object.keys(east.prices).length).toBeGreaterThan(800);
  });

  it('prices China in CNY', () => {
    expect(data.regions['cn-north-1'].currency).toBe('CNY');
  });
});

describe('buildPriceBook', () => {
  it("reads the region's own table, and says how old it is", () => {
    const book = buildPriceBook({ data, region: 'us-east-1', now: NOW });
    expect(book.onDemand('m5.large')).toBe(0.096);
    expect(book.onDemand('no.such')).toBeUndefined();
    expect(book.provenance.onDemand).toMatchObject({ table: 'us-east-1', fallback: false, currency: 'USD' });
    expect(book.provenance.onDemand.ageDays).toBeGreaterThan(100);
    expect(book.describe()[0]).toMatch(/^On-demand prices: us-east-1's table, generated 2026-\d\d-\d\d, \d+ day\(s\) old, from Karpenter's AWS provider v/);
  });

  it("falls back to us-east-1's table for a region without one, as Karpenter does, and says so", () => {
    const book = buildPriceBook({ data, region: 'eu-west-1', now: NOW });
    expect(book.onDemand('m5.large')).toBe(0.096);
    expect(book.provenance.onDemand).toMatchObject({ table: 'us-east-1', region: 'eu-west-1', fallback: true });
    expect(book.describe()[0]).toContain('none is bundled for eu-west-1');
  });

  it('keeps the newest Linux spot price in effect at --now per type and zone', () => {
    const book = buildPriceBook({ data, region: 'us-east-1', now: NOW, spotRows: rows, spotFrom: ['spot.json'] });
    expect(book.spot('m6i.xlarge', 'us-east-1a')).toEqual({ price: 0.0712, since: '2026-11-24T13:42:09.000Z' });
    // the 15:00 row is after --now; the Windows row is not a product Karpenter asks for
    expect(book.spot('m6i.xlarge', 'us-east-1b')).toEqual({ price: 0.0831, since: '2026-11-23T22:03:17.000Z' });
    // an unparsable price is ignored (pricing.go spotPage)
    expect(book.spot('m5.large', 'us-east-1c')).toBeUndefined();
    expect(book.hasSpot).toBe(true);
    expect(book.provenance.spot).toMatchObject({ rows: 3, offerings: 2, oldest: '2026-11-23T22:03:17.000Z', newest: '2026-11-24T13:42:09.000Z', from: ['spot.json'] });
    expect(book.describe()[1]).toBe(
      'Spot prices: 2 type×zone prices from spot.json, in effect since 2026-11-23 22:03–2026-11-24 13:42 UTC (a spot price holds until it changes); Karpenter refreshes its own every 12h.',
    );
  });

  it('without spot rows says spot prices are unknown and how to supply them', () => {
    const book = buildPriceBook({ data, region: 'us-east-1', now: NOW });
    expect(book.hasSpot).toBe(false);
    expect(book.spot('m6i.xlarge', 'us-east-1a')).toBeUndefined();
    expect(book.describe()[1]).toMatch(/^Spot prices: not supplied.*ec2:DescribeSpotPriceHistory.*aws ec2 describe-spot-price-history/);
  });
});

describe('formatPrice', () => {
  it('prints dollars with 2–4 decimals and yuan for CNY', () => {
    expect(formatPrice(0.096)).toBe('$0.096');
    expect(formatPrice(0.1)).toBe('$0.10');
    expect(formatPrice(2)).toBe('$2.00');
    expect(formatPrice(0.07123)).toBe('$0.0712');
    expect(formatPrice(1.013, 'CNY')).toBe('¥1.013');
    expect(formatPrice(undefined)).toBe('?');
  });
});
