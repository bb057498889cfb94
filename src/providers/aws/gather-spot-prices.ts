// Spot prices live: ec2:DescribeSpotPriceHistory as Karpenter's AWS provider asks it (pkg/providers/pricing/pricing.go
// UpdateSpotPricing@v1.14.1: Linux/UNIX products, StartTime now, so each type×zone's price in effect now), read only
// when the cluster runs Karpenter. The SDK loads lazily; pages and bytes are bounded like every other AWS call, and a
// denial becomes a gap (the answer then says spot prices are unknown and how to supply them).
import type { Ec2SpotPrice } from '../../model/aws.js';
import { emptyInputs, type RawInputs } from '../../model/snapshot.js';
import type { AwsGatherOptions } from './gather.js';
import { ec2Session, toAwsJson } from './gather-client.js';
import { EnvironmentError, LimitExceededError } from '../../gather/errors.js';
import { MAX_SPOT_ROWS } from '../../gather/spot-prices.js';

/** DescribeSpotPriceHistory MaxResults maximum (Karpenter asks 2000; EC2 documents 1000). */
const SPOT_PAGE_SIZE = 1000;
const ACTION = 'ec2:DescribeSpotPriceHistory';

export async function gatherSpotPrices(opts: AwsGatherOptions & { now: Date }): Promise<RawInputs> {
  const { ec2, client, book } = await ec2Session(opts);
  const inputs = emptyInputs();
  opts.onProgress?.(`aws: reading spot prices in ${opts.region}…`);
  let rows: Ec2SpotPrice[] | undefined;
  try {
    rows = await book.run(ACTION, `region ${opts.region}`, async () => {
      const out: Ec2SpotPrice[] = [];
      const guard = book.guard(ACTION);
      let NextToken: string | undefined;
      do {
        const page = await client.send(
          new ec2.DescribeSpotPriceHistoryCommand({
            ProductDescriptions: ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'],
            StartTime: opts.now,
            MaxResults: SPOT_PAGE_SIZE,
            NextToken,
          }),
        );
        out.push(...toAwsJson<Ec2SpotPrice[]>(page.SpotPriceHistory ?? []).slice(0, Math.max(0, MAX_SPOT_ROWS - out.length)));
        NextToken = out.length >= MAX_SPOT_ROWS ? undefined : guard.next(page.NextToken);
      } while (NextToken);
      return out;
    });
  } finally {
    client.destroy();
  }
  if (rows) {
    inputs.spotPriceHistory = rows.filter((r) => typeof r.InstanceType === 'string' && typeof r.SpotPrice === 'string' && typeof r.Timestamp === 'string');
    inputs.spotPriceSources = [`live ${ACTION} (${opts.region}, read ${opts.now.toISOString().slice(0, 16).replace('T', ' ')} UTC)`];
    if (rows.length >= MAX_SPOT_ROWS) inputs.warnings.push(`${ACTION}: more than ${MAX_SPOT_ROWS} spot price records; the rest are ignored`);
  }
  inputs.gaps.push(...book.gaps());
  return inputs;
}

/** gatherSpotPrices, with a failure that is not casdoctor's limit turned into a gap (spot prices are optional). */
export async function gatherSpotPricesOrGap(opts: AwsGatherOptions & { now: Date }): Promise<RawInputs> {
  try {
    return await gatherSpotPrices(opts);
  } catch (e) {
    if (!(e instanceof EnvironmentError) || e instanceof LimitExceededError) throw e;
    const inputs = emptyInputs();
    const scope = `region ${opts.region}`;
    inputs.gaps.push({ resource: ACTION, scope, reason: 'error', detail: `error: ${ACTION} (${scope}): ${e.message}` });
    return inputs;
  }
}
