// Live AWS gathering: the read-only calls Cluster Autoscaler itself makes (CA: cloudprovider/aws/aws_wrapper.go), batched,
// converted to the `aws ... --output json` shape (Dates as ISO strings), launch-template UserData stripped.
import type {
  AutoScalingGroup,
  Ec2Image,
  Ec2InstanceTypeInfo,
  Ec2InstanceTypeOffering,
  EksNodegroup,
  InstanceRequirements,
  LaunchConfiguration,
  LaunchTemplateSpecification,
  LaunchTemplateVersion,
  ScalingActivity,
} from '../../model/aws.js';
import { emptyInputs, type RawInputs } from '../../model/snapshot.js';
import { EnvironmentError } from '../../gather/errors.js';
import { type LiveLimits, liveLimits } from '../../gather/live-limits.js';
import { ACTION_KIND, awsClientConfig, ec2Session, boundAwsClient, CallBook, chunks, endpointFor, listScope, mapLimit, toAwsJson } from './gather-client.js';

export interface AwsGatherOptions {
  region: string;
  profile?: string;
  requestTimeoutMs: number;
  onProgress?: (msg: string) => void;
  /** Test hooks: a loopback endpoint for every service, static credentials, fast retries. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  maxAttempts?: number;
  retryDelayMs?: number;
  /** Smaller bounds for tests (see live-limits.ts). */
  limits?: Partial<LiveLimits>;
}

const ASG_PAGE_SIZE = 100; // DescribeAutoScalingGroups MaxRecords maximum
const LC_BATCH = 50; // DescribeLaunchConfigurations LaunchConfigurationNames maximum (CA batches the same way)
const INSTANCE_TYPE_BATCH = 100; // DescribeInstanceTypes InstanceTypes maximum
const IMAGE_BATCH = 100;
const ACTIVITIES_PER_GROUP = 20;
const CONCURRENCY = 8; // parallel calls per action, to stay under API rate limits

interface TemplateRef {
  id?: string;
  name?: string;
  versions: Set<string>;
}

const templateKey = (s: LaunchTemplateSpecification) =>
  s.LaunchTemplateId ? `id:${s.LaunchTemplateId}` : `name:${s.LaunchTemplateName}`;

/** Every launch template an ASG points at (group, mixed-instances policy, per-override, running instances). */
function referencedTemplates(asgs: AutoScalingGroup[]): TemplateRef[] {
  const refs = new Map<string, TemplateRef>();
  const add = (s: LaunchTemplateSpecification | undefined) => {
    if (!s || (!s.LaunchTemplateId && !s.LaunchTemplateName)) return;
    const key = templateKey(s);
    const ref = refs.get(key) ?? {
      id: s.LaunchTemplateId,
      name: s.LaunchTemplateId ? undefined : s.LaunchTemplateName,
      versions: new Set(),
    };
    // CA: an unset version means $Default (aws_wrapper.go buildLaunchTemplateFromSpec); $Latest/$Default for drift checks
    ref.versions.add(s.Version || '$Default');
    ref.versions.add('$Latest');
    ref.versions.add('$Default');
    refs.set(key, ref);
  };
  for (const asg of asgs) {
    add(asg.LaunchTemplate);
    add(asg.MixedInstancesPolicy?.LaunchTemplate?.LaunchTemplateSpecification);
    for (const o of asg.MixedInstancesPolicy?.LaunchTemplate?.Overrides ?? [])
      add(o.LaunchTemplateSpecification);
    for (const i of asg.Instances ?? []) add(i.LaunchTemplate);
  }
  return [...refs.values()];
}

/** The version an ASG's spec resolves to, among the fetched ones. */
export function resolveTemplateVersion(
  versions: LaunchTemplateVersion[],
  spec: LaunchTemplateSpecification,
): LaunchTemplateVersion | undefined {
  const mine = versions.filter((v) =>
    spec.LaunchTemplateId
      ? v.LaunchTemplateId === spec.LaunchTemplateId
      : v.LaunchTemplateName === spec.LaunchTemplateName,
  );
  const want = spec.Version || '$Default';
  if (want === '$Default') return mine.find((v) => v.DefaultVersion);
  if (want === '$Latest')
    return mine.reduce<LaunchTemplateVersion | undefined>(
      (a, v) => ((v.VersionNumber ?? 0) > (a?.VersionNumber ?? -1) ? v : a),
      undefined,
    );
  return mine.find((v) => String(v.VersionNumber) === want);
}

export async function gatherAws(opts: AwsGatherOptions): Promise<RawInputs> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const progress = (m: string) => opts.onProgress?.(`aws: ${m}`);
  const [as, ec2, eks] = await Promise.all([
    import('@aws-sdk/client-auto-scaling'),
    import('@aws-sdk/client-ec2'),
    import('@aws-sdk/client-eks'),
  ]);
  const common = await awsClientConfig(opts);
  const limits = liveLimits(opts.limits);
  const autoscaling = new as.AutoScalingClient(common);
  const ec2c = new ec2.EC2Client(common);
  const eksc = new eks.EKSClient(common);
  for (const c of [autoscaling, ec2c, eksc])
    boundAwsClient(c, { timeoutMs: opts.requestTimeoutMs, maxBytes: limits.maxResponseBytes });
  const book = new CallBook(
    opts.region,
    (s) => endpointFor(opts, s),
    opts.profile ?? process.env.AWS_PROFILE,
    limits.maxAwsPages,
  );
  const inputs = emptyInputs();
  inputs.sources.push(`live: aws ${opts.region}`);
  const regionScope = `region ${opts.region}`;

  try {
    // 1. Every ASG of the region, 100 per page.
    progress(`describing auto scaling groups in ${opts.region}…`);
    const asgs: AutoScalingGroup[] = [];
    const listed = await book.run('autoscaling:DescribeAutoScalingGroups', regionScope, async () => {
      const guard = book.guard('autoscaling:DescribeAutoScalingGroups');
      for await (const page of as.paginateDescribeAutoScalingGroups(
        { client: autoscaling, pageSize: ASG_PAGE_SIZE },
        {},
      )) {
        asgs.push(...toAwsJson<AutoScalingGroup[]>(page.AutoScalingGroups ?? []));
        guard.next(page.NextToken); // throws on a repeated token or past the page budget, which ends the paginator
      }
      return true;
    });
    if (!listed) {
      const f = book.failures.get('autoscaling:DescribeAutoScalingGroups')?.[0];
      if (f?.reason === 'timeout') {
        throw new EnvironmentError(
          `autoscaling:DescribeAutoScalingGroups ${f.message}`,
          'check network access to AWS, or allow more time with --request-timeout',
        );
      }
      inputs.gaps.push(...book.gaps());
      return inputs;
    }
    inputs.autoScalingGroups = asgs;
    progress(`${asgs.length} auto scaling groups`);

    const templates = referencedTemplates(asgs);
    const lcNames = [
      ...new Set(
        asgs.flatMap((a) => [
          a.LaunchConfigurationName,
          ...(a.Instances ?? []).map((i) => i.LaunchConfigurationName),
        ]),
      ),
    ]
      .filter((n): n is string => !!n)
      .sort();
    const nodegroups = new Map<string, { clusterName: string; nodegroupName: string }>();
    for (const asg of asgs) {
      const tag = (k: string) => asg.Tags?.find((t) => t.Key === k)?.Value;
      const clusterName = tag('eks:cluster-name');
      const nodegroupName = tag('eks:nodegroup-name');
      if (clusterName && nodegroupName)
        nodegroups.set(`${clusterName}/${nodegroupName}`, { clusterName, nodegroupName });
    }
    progress(
      `describing ${templates.length} launch templates, ${lcNames.length} launch configurations, ${nodegroups.size} EKS node groups and the scaling activities of ${asgs.length} groups…`,
    );

    // 2. Scaling activities run alongside everything else.
    const activities = mapLimit(asgs, CONCURRENCY, (asg) =>
      book.run(
        'autoscaling:DescribeScalingActivities',
        `autoScalingGroup ${asg.AutoScalingGroupName}`,
        async () => {
          const out = await autoscaling.send(
            new as.DescribeScalingActivitiesCommand({
              AutoScalingGroupName: asg.AutoScalingGroupName,
              MaxRecords: ACTIVITIES_PER_GROUP,
            }),
          );
          return toAwsJson<ScalingActivity[]>(out.Activities ?? []);
        },
      ),
    );

    const rest = (async () => {
      const [ltVersions, lcs, ngs] = await Promise.all([
        describeTemplates(book, ec2, ec2c, templates),
        describeLaunchConfigurations(book, as, autoscaling, lcNames),
        mapLimit([...nodegroups.values()], CONCURRENCY, (ng) =>
          book.run('eks:DescribeNodegroup', `nodegroup ${ng.clusterName}/${ng.nodegroupName}`, async () => {
            const out = await eksc.send(new eks.DescribeNodegroupCommand(ng));
            return out.nodegroup ? toAwsJson<EksNodegroup>(out.nodegroup) : undefined;
          }),
        ),
      ]);
      inputs.launchTemplateVersions = ltVersions;
      inputs.launchConfigurations = lcs;
      inputs.eksNodegroups = ngs.filter((n): n is EksNodegroup => !!n);

      // 3. Attribute-based instance selection: image architecture, then the matching types (CA: getInstanceTypeFromInstanceRequirements).
      const abs = await describeAttributeBasedGroups(book, ec2, ec2c, asgs, ltVersions, progress);
      inputs.images = abs.images;
      inputs.instanceTypesFromRequirements = abs.types.map((t) => ({ InstanceType: t }));

      // 4. Instance types referenced anywhere, never the whole region.
      const types = new Set<string>();
      for (const asg of asgs) {
        for (const i of asg.Instances ?? []) if (i.InstanceType) types.add(i.InstanceType);
        for (const o of asg.MixedInstancesPolicy?.LaunchTemplate?.Overrides ?? [])
          if (o.InstanceType) types.add(o.InstanceType);
      }
      for (const lc of lcs) if (lc.InstanceType) types.add(lc.InstanceType);
      for (const v of ltVersions)
        if (v.LaunchTemplateData?.InstanceType) types.add(v.LaunchTemplateData.InstanceType);
      for (const ng of inputs.eksNodegroups) for (const t of ng.instanceTypes ?? []) types.add(t);
      for (const t of abs.types) types.add(t);
      progress(`describing ${types.size} instance types…`);
      inputs.instanceTypes = await describeInstanceTypes(book, ec2, ec2c, [...types].sort());
    })();

    const [acts] = await Promise.all([activities, rest]);
    inputs.scalingActivities = acts.flatMap((a) => a ?? []);
  } finally {
    autoscaling.destroy();
    ec2c.destroy();
    eksc.destroy();
  }

  inputs.gaps.push(...book.gaps());
  const incomplete = book.incompleteKinds();
  for (const kind of Object.values(ACTION_KIND)) if (!incomplete.has(kind)) inputs.provided.add(kind);
  progress('done');
  return inputs;
}

/** DescribeInstanceTypeOfferings MaxResults maximum. */
const OFFERINGS_PAGE_SIZE = 1000;

/**
 * EC2's instance-type offerings per zone, read only when the cluster runs Karpenter: `zones` are its EC2NodeClasses'
 * subnet zones (empty: every zone of the region, as Karpenter itself asks; karpenter-provider-aws
 * pkg/providers/instancetype/offering). Bounded like every other call: pages of 1,000, the page budget, a gap on denial.
 */
export async function gatherInstanceTypeOfferings(opts: AwsGatherOptions & { zones: readonly string[] }): Promise<RawInputs> {
  const { ec2, client, book } = await ec2Session(opts);
  const inputs = emptyInputs();
  const action = 'ec2:DescribeInstanceTypeOfferings';
  const zones = [...new Set(opts.zones)].sort();
  opts.onProgress?.(`aws: describing instance type offerings in ${zones.length ? zones.join(', ') : opts.region}…`);
  let rows: Ec2InstanceTypeOffering[] | undefined;
  try {
    rows = await book.run(action, zones.length ? listScope('zones', zones) : `region ${opts.region}`, async () => {
      const out: Ec2InstanceTypeOffering[] = [];
      const guard = book.guard(action);
      let NextToken: string | undefined;
      do {
        const page = await client.send(
          new ec2.DescribeInstanceTypeOfferingsCommand({
            LocationType: 'availability-zone',
            ...(zones.length ? { Filters: [{ Name: 'location', Values: zones }] } : {}),
            MaxResults: OFFERINGS_PAGE_SIZE,
            NextToken,
          }),
        );
        out.push(...toAwsJson<Ec2InstanceTypeOffering[]>(page.InstanceTypeOfferings ?? []));
        NextToken = guard.next(page.NextToken);
      } while (NextToken);
      return out;
    });
  } finally {
    client.destroy();
  }
  if (rows) {
    inputs.instanceTypeOfferings = rows.sort((a, b) =>
      a.Location === b.Location ? (a.InstanceType < b.InstanceType ? -1 : 1) : a.Location < b.Location ? -1 : 1,
    );
    inputs.provided.add('instanceTypeOfferings');
  }
  inputs.gaps.push(...book.gaps());
  return inputs;
}

type Ec2Module = typeof import('@aws-sdk/client-ec2');
type AsModule = typeof import('@aws-sdk/client-auto-scaling');
type Ec2Client = InstanceType<Ec2Module['EC2Client']>;
type AsClient = InstanceType<AsModule['AutoScalingClient']>;

/** One DescribeLaunchTemplateVersions per template with every version of interest; UserData is dropped. */
async function describeTemplates(
  book: CallBook,
  ec2: Ec2Module,
  client: Ec2Client,
  templates: TemplateRef[],
): Promise<LaunchTemplateVersion[]> {
  const action = 'ec2:DescribeLaunchTemplateVersions';
  const fetch = async (t: TemplateRef, versions: string[]) => {
    const out: LaunchTemplateVersion[] = [];
    const guard = book.guard(action);
    let NextToken: string | undefined;
    do {
      const page = await client.send(
        new ec2.DescribeLaunchTemplateVersionsCommand({
          ...(t.id ? { LaunchTemplateId: t.id } : { LaunchTemplateName: t.name }),
          Versions: versions,
          NextToken,
        }),
      );
      out.push(...toAwsJson<LaunchTemplateVersion[]>(page.LaunchTemplateVersions ?? []));
      NextToken = guard.next(page.NextToken);
    } while (NextToken);
    return out;
  };
  const perTemplate = await mapLimit(templates, CONCURRENCY, async (t) => {
    const scope = `launchTemplate ${t.id ?? t.name}`;
    const versions = [...t.versions];
    try {
      book.calls.set(action, (book.calls.get(action) ?? 0) + 1);
      return await fetch(t, versions);
    } catch (e) {
      const f = book.classify(action, scope, e);
      // One missing version fails the whole call: ask for each version on its own to keep the others.
      if (f.reason === 'not-found' && /VersionNotFound/.test(f.message) && versions.length > 1) {
        const each = await mapLimit(versions, CONCURRENCY, (v) =>
          book.run(action, `${scope} version ${v}`, () => fetch(t, [v])),
        );
        return each.flatMap((x) => x ?? []);
      }
      book.failures.set(action, [...(book.failures.get(action) ?? []), f]);
      return [];
    }
  });
  const seen = new Set<string>();
  const out: LaunchTemplateVersion[] = [];
  for (const v of perTemplate.flat()) {
    const key = `${v.LaunchTemplateId}:${v.VersionNumber}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (v.LaunchTemplateData) delete v.LaunchTemplateData.UserData; // never keep bootstrap scripts (they may hold secrets)
    out.push(v);
  }
  return out.sort((a, b) =>
    (a.LaunchTemplateId ?? '') === (b.LaunchTemplateId ?? '')
      ? (a.VersionNumber ?? 0) - (b.VersionNumber ?? 0)
      : (a.LaunchTemplateId ?? '') < (b.LaunchTemplateId ?? '')
        ? -1
        : 1,
  );
}

async function describeLaunchConfigurations(
  book: CallBook,
  as: AsModule,
  client: AsClient,
  names: string[],
): Promise<LaunchConfiguration[]> {
  const pages = await mapLimit(chunks(names, LC_BATCH), CONCURRENCY, (batch) =>
    book.run(
      'autoscaling:DescribeLaunchConfigurations',
      listScope('launchConfigurations', batch),
      async () => {
        const out: LaunchConfiguration[] = [];
        const guard = book.guard('autoscaling:DescribeLaunchConfigurations');
        let NextToken: string | undefined;
        do {
          const page = await client.send(
            new as.DescribeLaunchConfigurationsCommand({
              LaunchConfigurationNames: batch,
              MaxRecords: LC_BATCH,
              NextToken,
            }),
          );
          out.push(...toAwsJson<LaunchConfiguration[]>(page.LaunchConfigurations ?? []));
          NextToken = guard.next(page.NextToken);
        } while (NextToken);
        return out;
      },
    ),
  );
  return pages
    .flatMap((p) => p ?? [])
    .map((lc) => {
      delete lc.UserData; // same reason as launch templates
      return lc;
    });
}

/** Batches of 100 names; a name EC2 does not know fails the batch, so it is retried once without the unknown names. */
async function describeInstanceTypes(
  book: CallBook,
  ec2: Ec2Module,
  client: Ec2Client,
  names: string[],
): Promise<Ec2InstanceTypeInfo[]> {
  const action = 'ec2:DescribeInstanceTypes';
  const fetch = async (batch: string[]) => {
    const out: Ec2InstanceTypeInfo[] = [];
    const guard = book.guard(action);
    let NextToken: string | undefined;
    do {
      const page = await client.send(
        new ec2.DescribeInstanceTypesCommand({ InstanceTypes: batch as never[], NextToken }),
      );
      out.push(...toAwsJson<Ec2InstanceTypeInfo[]>(page.InstanceTypes ?? []));
      NextToken = guard.next(page.NextToken);
    } while (NextToken);
    return out;
  };
  const pages = await mapLimit(chunks(names, INSTANCE_TYPE_BATCH), CONCURRENCY, async (batch) => {
    const scope = listScope('instanceTypes', batch);
    try {
      book.calls.set(action, (book.calls.get(action) ?? 0) + 1);
      return await fetch(batch);
    } catch (e) {
      const f = book.classify(action, scope, e);
      const unknown = /InvalidInstanceType/.test(f.message)
        ? (/\[([^\]]*)\]/.exec(f.message)?.[1] ?? '').split(/[,\s]+/).filter(Boolean)
        : [];
      const remaining = batch.filter((n) => !unknown.includes(n));
      book.failures.set(action, [
        ...(book.failures.get(action) ?? []),
        { ...f, scope: unknown.length ? listScope('instanceTypes', unknown) : scope },
      ]);
      if (unknown.length === 0 || remaining.length === 0 || remaining.length === batch.length) return [];
      return (await book.run(action, listScope('instanceTypes', remaining), () => fetch(remaining))) ?? [];
    }
  });
  return pages.flat().sort((a, b) => (a.InstanceType < b.InstanceType ? -1 : 1));
}

interface AbsGroup {
  asg: string;
  imageId: string;
  requirements: InstanceRequirements;
}

async function describeAttributeBasedGroups(
  book: CallBook,
  ec2: Ec2Module,
  client: Ec2Client,
  asgs: AutoScalingGroup[],
  versions: LaunchTemplateVersion[],
  progress: (m: string) => void,
): Promise<{ images: Ec2Image[]; types: string[] }> {
  const groups: AbsGroup[] = [];
  for (const asg of asgs) {
    const mip = asg.MixedInstancesPolicy?.LaunchTemplate;
    // CA: explicit instance-type overrides win over requirements (aws_wrapper.go getInstanceTypesForAsgs)
    if (mip?.Overrides?.some((o) => o.InstanceType)) continue;
    const spec = mip?.LaunchTemplateSpecification ?? asg.LaunchTemplate;
    if (!spec) continue;
    const data = resolveTemplateVersion(versions, spec)?.LaunchTemplateData;
    const requirements =
      mip?.Overrides?.find((o) => o.InstanceRequirements)?.InstanceRequirements ??
      (data && !data.InstanceType ? data.InstanceRequirements : undefined);
    if (requirements && data?.ImageId)
      groups.push({ asg: asg.AutoScalingGroupName, imageId: data.ImageId, requirements });
  }
  if (groups.length === 0) return { images: [], types: [] };
  progress(`resolving attribute-based instance types of ${groups.length} groups…`);

  const imageIds = [...new Set(groups.map((g) => g.imageId))].sort();
  const imagePages = await mapLimit(chunks(imageIds, IMAGE_BATCH), CONCURRENCY, (batch) =>
    book.run('ec2:DescribeImages', listScope('images', batch), async () => {
      const out = await client.send(new ec2.DescribeImagesCommand({ ImageIds: batch }));
      return toAwsJson<Ec2Image[]>(out.Images ?? []);
    }),
  );
  const images = imagePages.flatMap((p) => p ?? []);

  const queries = new Map<
    string,
    { archs: string[]; virts: string[]; requirements: InstanceRequirements; asgs: string[] }
  >();
  for (const g of groups) {
    const image = images.find((i) => i.ImageId === g.imageId);
    if (!image) continue;
    const archs = image.Architecture ? [image.Architecture] : [];
    const virts = typeof image.VirtualizationType === 'string' ? [image.VirtualizationType] : [];
    const key = JSON.stringify([archs, virts, g.requirements]);
    const q = queries.get(key) ?? { archs, virts, requirements: g.requirements, asgs: [] };
    q.asgs.push(g.asg);
    queries.set(key, q);
  }
  const results = await mapLimit([...queries.values()], CONCURRENCY, (q) =>
    book.run(
      'ec2:GetInstanceTypesFromInstanceRequirements',
      listScope('autoScalingGroups', q.asgs),
      async () => {
        const out: string[] = [];
        const guard = book.guard('ec2:GetInstanceTypesFromInstanceRequirements');
        let NextToken: string | undefined;
        do {
          // Autoscaling's InstanceRequirements and EC2's InstanceRequirementsRequest share member names (CA copies them field by field).
          const page = await client.send(
            new ec2.GetInstanceTypesFromInstanceRequirementsCommand({
              ArchitectureTypes: q.archs as never[],
              VirtualizationTypes: q.virts as never[],
              InstanceRequirements: q.requirements as never,
              NextToken,
            }),
          );
          for (const t of page.InstanceTypes ?? []) if (t.InstanceType) out.push(t.InstanceType);
          NextToken = guard.next(page.NextToken);
        } while (NextToken);
        return out;
      },
    ),
  );
  const types: string[] = [];
  for (const t of results.flatMap((r) => r ?? [])) if (!types.includes(t)) types.push(t);
  return { images, types };
}
