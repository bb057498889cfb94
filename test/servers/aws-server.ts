// A loopback AWS endpoint for tests: autoscaling and iam (query protocol, XML), ec2 (EC2 query protocol, XML), eks
// (REST/JSON) and cloudtrail (JSON 1.1, X-Amz-Target) on one HTTP server. Requests are decoded and responses encoded from the SDK's own Smithy schemas, so
// the wire names (launchTemplateVersionSet/item, AutoScalingGroups/member, epoch-second EKS dates) are AWS's.
// Faults (throttling, denial, expired token, ...) use each protocol's real error shape. Every request is recorded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as AS from '@aws-sdk/client-auto-scaling';
import * as CT from '@aws-sdk/client-cloudtrail';
import * as EC2 from '@aws-sdk/client-ec2';
import * as EKS from '@aws-sdk/client-eks';
import * as IAM from '@aws-sdk/client-iam';
import type {
  AutoScalingGroup,
  Ec2Image,
  Ec2InstanceTypeInfo,
  Ec2InstanceTypeOffering,
  IamEvaluationResult,
  LaunchConfiguration,
  LaunchTemplateVersion,
  ScalingActivity,
} from '../../src/model/aws.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { pumpGzipBomb } from './gzip-bomb.js';

export type AwsService = 'autoscaling' | 'ec2' | 'iam' | 'eks' | 'cloudtrail';

export interface AwsRequest {
  service: AwsService | 'unknown';
  action: string;
  /** The region of the SigV4 credential scope. */
  region?: string;
  /** Decoded with the operation's input schema (SDK member names), e.g. { LaunchTemplateId, Versions: [...] }. */
  params: Record<string, unknown>;
  method: string;
}

export interface AwsFault {
  /** 'DescribeScalingActivities', 'autoscaling:DescribeScalingActivities', 'ec2:*' or '*'. */
  action: string;
  /**
   * The error code. Generic codes are translated to each service's own: AccessDenied → UnauthorizedOperation (ec2) /
   * AccessDeniedException (eks); Throttling → RequestLimitExceeded (ec2) / ThrottlingException (eks);
   * ExpiredToken → ExpiredTokenException (eks).
   */
  code: string;
  /** How many matching requests fail; default: all. */
  times?: number;
  status?: number;
  message?: string;
}

export interface AwsServerOptions {
  /** Largest page the server returns, whatever MaxRecords/MaxResults asks (a smaller page with a NextToken is legal). */
  pageSize?: number;
  faults?: AwsFault[];
  /** Milliseconds to wait before answering, by action (same matching as faults). */
  delays?: Record<string, number>;
  /** The principal named in AccessDenied messages. */
  principal?: string;
  hostile?: AwsHostile[];
  /** iam:GetInstanceProfile answers (the node-role fallback of CA's principal). */
  instanceProfiles?: Array<{
    InstanceProfileName: string;
    Arn?: string;
    Roles: Array<{ RoleName: string; Arn: string }>;
  }>;
  /** EKS Pod Identity associations (ListPodIdentityAssociations / DescribePodIdentityAssociation). */
  podIdentityAssociations?: Array<{
    clusterName: string;
    namespace: string;
    serviceAccount: string;
    associationId: string;
    roleArn: string;
  }>;
}

/** A hostile answer, for the tests of casdoctor's live limits. */
export interface AwsHostile {
  /** Same matching as faults: 'DescribeAutoScalingGroups', 'ec2:*', '*'. */
  action: string;
  /**
   * 'repeat-token': every page carries the same NextToken (Marker for IAM); 'endless-token': a new one on every page;
   * 'trickle': the headers, then one byte every `intervalMs` (default 200), forever; 'endless-body': a well-formed
   * answer whose body never ends; 'gzip-bomb': a gzip body (Content-Encoding: gzip) that inflates to `bytes` (1 GiB).
   */
  mode: 'repeat-token' | 'endless-token' | 'trickle' | 'endless-body' | 'gzip-bomb';
  intervalMs?: number;
  bytes?: number;
}

export interface AwsServer {
  endpoint: string;
  requests: AwsRequest[];
  setData(data: Partial<RawInputs>): void;
  close(): Promise<void>;
}

// --- Smithy static schemas (arrays: [3 struct | 1 list | 2 map | 0 simple | 9 operation, ns, name, traits, ...]) -----

type Traits = Record<string, unknown>;
type Shape =
  | { type: 'simple'; code: number }
  | { type: 'struct'; names: string[]; members: unknown[] }
  | { type: 'list'; member: unknown }
  | { type: 'map'; value: unknown };

const deref = (s: unknown): any => (typeof s === 'function' ? s() : s);
const traitsOf = (t: unknown): Traits => (t && typeof t === 'object' ? (t as Traits) : {});

function member(ref: unknown): { target: any; traits: Traits } {
  if (Array.isArray(ref) && ref.length === 2) return { target: deref(ref[0]), traits: traitsOf(ref[1]) };
  return { target: deref(ref), traits: {} };
}

function shapeOf(target: any): Shape {
  if (typeof target === 'number') {
    if (target >= 128) return { type: 'map', value: target & 63 };
    if (target >= 64) return { type: 'list', member: target & 63 };
    return { type: 'simple', code: target };
  }
  if (Array.isArray(target)) {
    switch (target[0]) {
      case 3:
      case -3:
      case 4:
        return { type: 'struct', names: target[4], members: target[5] };
      case 1:
        return { type: 'list', member: target[4] };
      case 2:
        return { type: 'map', value: target[5] };
      case 0:
        return shapeOf(deref(target[4]));
    }
  }
  return { type: 'simple', code: 0 };
}

const isTimestamp = (code: number) => code >= 4 && code <= 7;
const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const escapeXml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');

function xmlValue(value: unknown, target: any, ec2: boolean): string {
  const s = shapeOf(target);
  if (s.type === 'simple') {
    if (value instanceof Date) return value.toISOString();
    if (isTimestamp(s.code) && typeof value === 'number') return new Date(value * 1000).toISOString();
    return escapeXml(String(value));
  }
  if (s.type === 'struct') {
    let out = '';
    s.names.forEach((name, i) => {
      const v = (value as Record<string, unknown>)[name];
      if (v === undefined || v === null) return;
      const m = member(s.members[i]);
      const el = (m.traits.xmlName as string | undefined) ?? (ec2 ? lowerFirst(name) : name);
      const ms = shapeOf(m.target);
      if (ms.type === 'list' && m.traits.xmlFlattened) {
        const item = member(ms.member);
        for (const x of v as unknown[]) out += `<${el}>${xmlValue(x, item.target, ec2)}</${el}>`;
      } else out += `<${el}>${xmlValue(v, m.target, ec2)}</${el}>`;
    });
    return out;
  }
  if (s.type === 'list') {
    const item = member(s.member);
    const el = (item.traits.xmlName as string | undefined) ?? (ec2 ? 'item' : 'member');
    return (value as unknown[]).map((x) => `<${el}>${xmlValue(x, item.target, ec2)}</${el}>`).join('');
  }
  const v = member(s.value);
  return Object.entries(value as Record<string, unknown>)
    .map(([k, x]) => `<entry><key>${escapeXml(k)}</key><value>${xmlValue(x, v.target, ec2)}</value></entry>`)
    .join('');
}

function jsonValue(value: unknown, target: any): unknown {
  const s = shapeOf(target);
  if (s.type === 'simple') {
    // restJson timestamps default to epoch seconds
    if (isTimestamp(s.code) && typeof value === 'string') return Date.parse(value) / 1000;
    if (isTimestamp(s.code) && value instanceof Date) return value.getTime() / 1000;
    return value;
  }
  if (s.type === 'struct') {
    const out: Record<string, unknown> = {};
    s.names.forEach((name, i) => {
      const v = (value as Record<string, unknown>)[name];
      if (v === undefined) return;
      const m = member(s.members[i]);
      out[(m.traits.jsonName as string | undefined) ?? name] = jsonValue(v, m.target);
    });
    return out;
  }
  if (s.type === 'list') return (value as unknown[]).map((x) => jsonValue(x, member(s.member).target));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, x]) => [
      k,
      jsonValue(x, member(s.value).target),
    ]),
  );
}

/** Decodes query-protocol form fields (Key.member.N, EC2's Key.N, Key.entry.N.key) into SDK-shaped input. */
function fromQuery(
  form: Map<string, string>,
  prefix: string,
  target: any,
  ec2: boolean,
  memberTraits: Traits = {},
): unknown {
  const keys = [...form.keys()];
  const present = (p: string) => keys.some((k) => k === p || k.startsWith(`${p}.`));
  const s = shapeOf(target);
  if (s.type === 'simple') {
    const v = form.get(prefix);
    if (v === undefined) return undefined;
    if (s.code === 1) return Number(v);
    if (s.code === 2) return v === 'true';
    return v;
  }
  if (s.type === 'struct') {
    const out: Record<string, unknown> = {};
    s.names.forEach((name, i) => {
      const m = member(s.members[i]);
      const key = ec2
        ? ((m.traits.ec2QueryName as string | undefined) ??
          upperFirst((m.traits.xmlName as string | undefined) ?? name))
        : ((m.traits.xmlName as string | undefined) ?? name);
      const full = prefix ? `${prefix}.${key}` : key;
      if (!present(full)) return;
      const v = fromQuery(form, full, m.target, ec2, m.traits);
      if (v !== undefined) out[name] = v;
    });
    return out;
  }
  if (s.type === 'list') {
    const item = member(s.member);
    const base =
      ec2 || memberTraits.xmlFlattened
        ? prefix
        : `${prefix}.${(item.traits.xmlName as string | undefined) ?? 'member'}`;
    const out: unknown[] = [];
    for (let n = 1; present(`${base}.${n}`); n++) out.push(fromQuery(form, `${base}.${n}`, item.target, ec2));
    return out;
  }
  const out: Record<string, unknown> = {};
  const v = member(s.value);
  for (let n = 1; present(`${prefix}.entry.${n}`); n++) {
    out[form.get(`${prefix}.entry.${n}.key`) ?? ''] = fromQuery(
      form,
      `${prefix}.entry.${n}.value`,
      v.target,
      ec2,
    );
  }
  return out;
}

// --- operations ------------------------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

type Handler = (input: any, data: Partial<RawInputs>) => Record<string, unknown>;

interface Operation {
  schema: any;
  handle: Handler;
}

const SERVICES: Record<string, { service: AwsService; xmlns: string }> = {
  '2011-01-01': { service: 'autoscaling', xmlns: 'http://autoscaling.amazonaws.com/doc/2011-01-01/' },
  '2016-11-15': { service: 'ec2', xmlns: 'http://ec2.amazonaws.com/doc/2016-11-15/' },
  '2010-05-08': { service: 'iam', xmlns: 'https://iam.amazonaws.com/doc/2010-05-08/' },
};

function paginate<T>(
  items: T[],
  token: string | undefined,
  max: number | undefined,
  pageSize: number | undefined,
  dflt: number,
) {
  const start = token ? Number(Buffer.from(token, 'base64').toString('utf8').split(':')[1]) : 0;
  if (!Number.isInteger(start)) throw new ApiError('InvalidNextToken', 'The token is not valid.');
  const size = Math.min(max ?? dflt, pageSize ?? Number.POSITIVE_INFINITY);
  const page = items.slice(start, start + size);
  const next =
    start + page.length < items.length
      ? Buffer.from(`page:${start + page.length}`).toString('base64')
      : undefined;
  return { page, next };
}

function operations(
  pageSize: number | undefined,
  opts: AwsServerOptions = {},
): Record<AwsService, Record<string, Operation>> {
  const asgs = (d: Partial<RawInputs>) => d.autoScalingGroups ?? [];
  return {
    cloudtrail: {
      // CloudTrail_20131101.LookupEvents: one EventName attribute, the window, newest first, paged
      LookupEvents: {
        schema: CT.LookupEvents$,
        handle: (input, d) => {
          const attr = (input.LookupAttributes ?? [])[0] as { AttributeKey?: string; AttributeValue?: string } | undefined;
          const from = input.StartTime === undefined ? -Infinity : Number(input.StartTime) * 1000;
          const to = input.EndTime === undefined ? Infinity : Number(input.EndTime) * 1000;
          const items = (d.cloudTrailEvents ?? [])
            .filter((e) => !attr || attr.AttributeKey !== 'EventName' || e.EventName === attr.AttributeValue)
            .filter((e) => {
              const t = Date.parse(String(e.EventTime));
              return t >= from && t <= to;
            })
            .sort((a, b) => Date.parse(String(b.EventTime)) - Date.parse(String(a.EventTime)));
          const { page, next } = paginate(items, input.NextToken, input.MaxResults, pageSize, 50);
          return { Events: page, ...(next ? { NextToken: next } : {}) };
        },
      },
    },
    autoscaling: {
      DescribeAutoScalingGroups: {
        schema: AS.DescribeAutoScalingGroups$,
        handle: (input, d) => {
          if (input.MaxRecords > 100)
            throw new ApiError('ValidationError', 'MaxRecords must be less than or equal to 100');
          let items: AutoScalingGroup[] = asgs(d);
          if (input.AutoScalingGroupNames?.length)
            items = items.filter((a) => input.AutoScalingGroupNames.includes(a.AutoScalingGroupName));
          for (const f of (input.Filters ?? []) as Array<{ Name: string; Values?: string[] }>) {
            const values = f.Values ?? [];
            items = items.filter((a) =>
              (a.Tags ?? []).some((t) =>
                f.Name === 'tag-key'
                  ? values.includes(t.Key)
                  : f.Name === 'tag-value'
                    ? values.includes(t.Value ?? '')
                    : f.Name.startsWith('tag:') &&
                      t.Key === f.Name.slice(4) &&
                      values.includes(t.Value ?? ''),
              ),
            );
          }
          const { page, next } = paginate(items, input.NextToken, input.MaxRecords, pageSize, 50);
          return { AutoScalingGroups: page, NextToken: next };
        },
      },
      DescribeLaunchConfigurations: {
        schema: AS.DescribeLaunchConfigurations$,
        handle: (input, d) => {
          let items: LaunchConfiguration[] = d.launchConfigurations ?? [];
          if (input.LaunchConfigurationNames?.length)
            items = items.filter((l) => input.LaunchConfigurationNames.includes(l.LaunchConfigurationName));
          const { page, next } = paginate(items, input.NextToken, input.MaxRecords, pageSize, 50);
          return { LaunchConfigurations: page, NextToken: next };
        },
      },
      DescribeScalingActivities: {
        schema: AS.DescribeScalingActivities$,
        handle: (input, d) => {
          let items: ScalingActivity[] = d.scalingActivities ?? [];
          if (input.AutoScalingGroupName)
            items = items.filter((a) => a.AutoScalingGroupName === input.AutoScalingGroupName);
          if (input.ActivityIds?.length)
            items = items.filter((a) => input.ActivityIds.includes(a.ActivityId));
          const { page, next } = paginate(items, input.NextToken, input.MaxRecords, pageSize, 100);
          return { Activities: page, NextToken: next };
        },
      },
    },
    ec2: {
      DescribeLaunchTemplateVersions: {
        schema: EC2.DescribeLaunchTemplateVersions$,
        handle: (input, d) => {
          if (input.LaunchTemplateId && input.LaunchTemplateName) {
            throw new ApiError(
              'InvalidParameterCombination',
              'Specify either LaunchTemplateId or LaunchTemplateName, not both.',
            );
          }
          const all: LaunchTemplateVersion[] = d.launchTemplateVersions ?? [];
          const mine = all.filter((v) =>
            input.LaunchTemplateId
              ? v.LaunchTemplateId === input.LaunchTemplateId
              : v.LaunchTemplateName === input.LaunchTemplateName,
          );
          if (mine.length === 0) {
            throw input.LaunchTemplateId
              ? new ApiError(
                  'InvalidLaunchTemplateId.NotFound',
                  `The specified launch template, with template ID ${input.LaunchTemplateId}, does not exist.`,
                )
              : new ApiError(
                  'InvalidLaunchTemplateName.NotFoundException',
                  `The specified launch template, with template name ${input.LaunchTemplateName}, does not exist.`,
                );
          }
          const id = mine[0].LaunchTemplateId;
          let items = mine;
          if (input.Versions?.length) {
            items = [];
            for (const want of input.Versions as string[]) {
              const found =
                want === '$Latest'
                  ? mine.reduce((a, v) => ((v.VersionNumber ?? 0) > (a.VersionNumber ?? 0) ? v : a))
                  : want === '$Default'
                    ? mine.find((v) => v.DefaultVersion)
                    : mine.find((v) => String(v.VersionNumber) === want);
              if (!found)
                throw new ApiError(
                  'InvalidLaunchTemplateId.VersionNotFound',
                  `Could not find launch template version ${want} for launch template ${id}`,
                );
              if (!items.includes(found)) items.push(found);
            }
          }
          const { page, next } = paginate(items, input.NextToken, input.MaxResults, pageSize, 200);
          return { LaunchTemplateVersions: page, NextToken: next };
        },
      },
      DescribeInstanceTypes: {
        schema: EC2.DescribeInstanceTypes$,
        handle: (input, d) => {
          let items: Ec2InstanceTypeInfo[] = d.instanceTypes ?? [];
          if (input.InstanceTypes?.length) {
            if (input.InstanceTypes.length > 100)
              throw new ApiError('InvalidParameterValue', 'The maximum number of instance types is 100.');
            const unknown = (input.InstanceTypes as string[]).filter(
              (n) => !items.some((t) => t.InstanceType === n),
            );
            if (unknown.length)
              throw new ApiError(
                'InvalidInstanceType',
                `The following supplied instance types do not exist: [${unknown.join(', ')}]`,
              );
            items = items.filter((t) => input.InstanceTypes.includes(t.InstanceType));
          }
          const { page, next } = paginate(items, input.NextToken, input.MaxResults, pageSize, 100);
          return { InstanceTypes: page, NextToken: next };
        },
      },
      DescribeImages: {
        schema: EC2.DescribeImages$,
        handle: (input, d) => {
          let items: Ec2Image[] = d.images ?? [];
          if (input.ImageIds?.length) {
            const unknown = (input.ImageIds as string[]).filter((id) => !items.some((i) => i.ImageId === id));
            if (unknown.length)
              throw new ApiError(
                'InvalidAMIID.NotFound',
                `The image id '[${unknown.join(', ')}]' does not exist`,
              );
            items = items.filter((i) => input.ImageIds.includes(i.ImageId));
          }
          const { page, next } = paginate(items, input.NextToken, input.MaxResults, pageSize, 1000);
          return { Images: page, NextToken: next };
        },
      },
      DescribeInstanceTypeOfferings: {
        schema: EC2.DescribeInstanceTypeOfferings$,
        handle: (input, d) => {
          // EC2: LocationType defaults to region; MaxResults 5-1000; filters location and instance-type
          if (input.MaxResults !== undefined && (input.MaxResults < 5 || input.MaxResults > 1000))
            throw new ApiError('InvalidParameterValue', `Value (${input.MaxResults}) for parameter maxResults is invalid. Expecting a value between 5 and 1000.`);
          const locationType = input.LocationType ?? 'region';
          let items: Ec2InstanceTypeOffering[] = (d.instanceTypeOfferings ?? []).filter(
            (o) => (o.LocationType ?? 'availability-zone') === locationType,
          );
          for (const f of (input.Filters ?? []) as Array<{ Name?: string; Values?: string[] }>) {
            const values = f.Values ?? [];
            if (f.Name === 'location') items = items.filter((o) => values.includes(o.Location));
            else if (f.Name === 'instance-type') items = items.filter((o) => values.includes(o.InstanceType));
            else throw new ApiError('InvalidParameterValue', `The filter '${f.Name}' is invalid`);
          }
          const { page, next } = paginate(items, input.NextToken, input.MaxResults, pageSize, 1000);
          return { InstanceTypeOfferings: page, NextToken: next };
        },
      },
      DescribeSpotPriceHistory: {
        schema: EC2.DescribeSpotPriceHistory$,
        handle: (input, d) => {
          // EC2: with a StartTime, each (type, zone, product)'s price in effect then (its last change before it) and
          // every change after; ProductDescriptions, InstanceTypes and AvailabilityZone narrow the rows
          const start = input.StartTime === undefined ? undefined : new Date(input.StartTime as string | Date).getTime();
          let rows = [...(d.spotPriceHistory ?? [])];
          const products = (input.ProductDescriptions ?? []) as string[];
          const types = (input.InstanceTypes ?? []) as string[];
          if (products.length) rows = rows.filter((r) => products.includes(r.ProductDescription ?? ''));
          if (types.length) rows = rows.filter((r) => types.includes(r.InstanceType));
          if (input.AvailabilityZone) rows = rows.filter((r) => r.AvailabilityZone === input.AvailabilityZone);
          if (start !== undefined) {
            const inEffect = new Map<string, (typeof rows)[number]>();
            for (const r of rows) {
              const t = Date.parse(r.Timestamp);
              const key = `${r.InstanceType}|${r.AvailabilityZone}|${r.ProductDescription}`;
              const have = inEffect.get(key);
              if (t <= start && (!have || t > Date.parse(have.Timestamp))) inEffect.set(key, r);
            }
            rows = rows.filter((r) => Date.parse(r.Timestamp) > start || inEffect.get(`${r.InstanceType}|${r.AvailabilityZone}|${r.ProductDescription}`) === r);
          }
          // newest first, as EC2 lists them
          rows.sort((a, b) => Date.parse(b.Timestamp) - Date.parse(a.Timestamp));
          const { page, next } = paginate(
            rows.map((r) => ({ ...r, Timestamp: new Date(r.Timestamp) })),
            input.NextToken,
            input.MaxResults,
            pageSize,
            1000,
          );
          return { SpotPriceHistory: page, NextToken: next };
        },
      },
      GetInstanceTypesFromInstanceRequirements: {
        schema: EC2.GetInstanceTypesFromInstanceRequirements$,
        handle: (input, d) => {
          let items = d.instanceTypesFromRequirements ?? [];
          if (items.length === 0) {
            // Without a canned answer, match vCPU / memory / architecture against the instance types the server holds.
            const r = input.InstanceRequirements ?? {};
            const within = (n: number | undefined, range?: { Min?: number; Max?: number }) =>
              n !== undefined &&
              (range?.Min === undefined || n >= range.Min) &&
              (range?.Max === undefined || n <= range.Max);
            items = (d.instanceTypes ?? [])
              .filter(
                (t) =>
                  within(t.VCpuInfo?.DefaultVCpus, r.VCpuCount) &&
                  within(t.MemoryInfo?.SizeInMiB, r.MemoryMiB) &&
                  (!input.ArchitectureTypes?.length ||
                    (t.ProcessorInfo?.SupportedArchitectures ?? []).some((a) =>
                      input.ArchitectureTypes.includes(a),
                    )),
              )
              .map((t) => ({ InstanceType: t.InstanceType }));
          }
          const { page, next } = paginate(items, input.NextToken, input.MaxResults, pageSize, 1000);
          return { InstanceTypes: page, NextToken: next };
        },
      },
    },
    iam: {
      SimulatePrincipalPolicy: {
        schema: IAM.SimulatePrincipalPolicy$,
        handle: (input, d) => {
          let items: IamEvaluationResult[] = d.iamEvaluationResults ?? [];
          if (input.ActionNames?.length)
            items = items.filter((r) => input.ActionNames.includes(r.EvalActionName));
          // like AWS, answer only for the resources asked about ("*" results stand for any resource)
          if (input.ResourceArns?.length)
            items = items.filter(
              (r) =>
                !r.EvalResourceName ||
                r.EvalResourceName === '*' ||
                input.ResourceArns.includes(r.EvalResourceName),
            );
          const { page, next } = paginate(items, input.Marker, input.MaxItems, pageSize, 100);
          return { EvaluationResults: page, IsTruncated: next !== undefined, Marker: next };
        },
      },
      GetInstanceProfile: {
        schema: IAM.GetInstanceProfile$,
        handle: (input) => {
          const p = (opts.instanceProfiles ?? []).find(
            (x) => x.InstanceProfileName === input.InstanceProfileName,
          );
          if (!p)
            throw new ApiError(
              'NoSuchEntity',
              `Instance Profile ${input.InstanceProfileName} cannot be found.`,
              404,
            );
          return {
            InstanceProfile: {
              Path: '/',
              InstanceProfileName: p.InstanceProfileName,
              InstanceProfileId: 'AIPAEXAMPLEPROFILE0001',
              Arn: p.Arn ?? `arn:aws:iam::111122223333:instance-profile/${p.InstanceProfileName}`,
              CreateDate: new Date('2026-01-05T09:00:00Z'),
              Roles: p.Roles.map((r) => ({
                Path: '/',
                RoleName: r.RoleName,
                RoleId: 'AROAEXAMPLEROLE000001',
                Arn: r.Arn,
                CreateDate: new Date('2026-01-05T09:00:00Z'),
              })),
            },
          };
        },
      },
    },
    eks: {
      ListPodIdentityAssociations: {
        schema: EKS.ListPodIdentityAssociations$,
        handle: (input) => ({
          associations: (opts.podIdentityAssociations ?? [])
            .filter(
              (x) =>
                x.clusterName === input.clusterName &&
                (!input.namespace || x.namespace === input.namespace) &&
                (!input.serviceAccount || x.serviceAccount === input.serviceAccount),
            )
            .map((x) => ({
              clusterName: x.clusterName,
              namespace: x.namespace,
              serviceAccount: x.serviceAccount,
              associationId: x.associationId,
              associationArn: `arn:aws:eks:us-east-1:111122223333:podidentityassociation/${x.clusterName}/${x.associationId}`,
            })),
        }),
      },
      DescribePodIdentityAssociation: {
        schema: EKS.DescribePodIdentityAssociation$,
        handle: (input) => {
          const x = (opts.podIdentityAssociations ?? []).find(
            (a) => a.clusterName === input.clusterName && a.associationId === input.associationId,
          );
          if (!x)
            throw new ApiError(
              'ResourceNotFoundException',
              `No association found for ${input.associationId}.`,
              404,
            );
          return {
            association: {
              clusterName: x.clusterName,
              namespace: x.namespace,
              serviceAccount: x.serviceAccount,
              roleArn: x.roleArn,
              associationId: x.associationId,
              associationArn: `arn:aws:eks:us-east-1:111122223333:podidentityassociation/${x.clusterName}/${x.associationId}`,
            },
          };
        },
      },
      DescribeNodegroup: {
        schema: EKS.DescribeNodegroup$,
        handle: (input, d) => {
          const ng = (d.eksNodegroups ?? []).find(
            (n) => n.clusterName === input.clusterName && n.nodegroupName === input.nodegroupName,
          );
          if (!ng)
            throw new ApiError(
              'ResourceNotFoundException',
              `No node group found for name: ${input.nodegroupName}.`,
              404,
            );
          return { nodegroup: ng };
        },
      },
    },
  };
}

const GENERIC_CODES: Record<AwsService, Record<string, string>> = {
  autoscaling: {},
  iam: {},
  ec2: { AccessDenied: 'UnauthorizedOperation', Throttling: 'RequestLimitExceeded' },
  eks: {
    AccessDenied: 'AccessDeniedException',
    Throttling: 'ThrottlingException',
    ExpiredToken: 'ExpiredTokenException',
  },
  cloudtrail: {
    AccessDenied: 'AccessDeniedException',
    Throttling: 'ThrottlingException',
    ExpiredToken: 'ExpiredTokenException',
  },
};

const DEFAULT_STATUS: Record<string, number> = {
  Throttling: 400,
  RequestLimitExceeded: 503,
  ThrottlingException: 429,
  AccessDenied: 403,
  AccessDeniedException: 403,
  UnauthorizedOperation: 403,
  ExpiredToken: 403,
  ExpiredTokenException: 403,
  InvalidClientTokenId: 403,
  UnrecognizedClientException: 403,
  AuthFailure: 401,
  ServiceUnavailable: 503,
  InternalFailure: 500,
  InternalError: 500,
};

function defaultMessage(code: string, service: AwsService, action: string, principal: string): string {
  const full = `${service}:${action}`;
  switch (code) {
    case 'Throttling':
    case 'ThrottlingException':
      return 'Rate exceeded';
    case 'RequestLimitExceeded':
      return 'Request limit exceeded.';
    case 'AccessDenied':
    case 'AccessDeniedException':
      return `User: ${principal} is not authorized to perform: ${full} because no identity-based policy allows the ${full} action`;
    case 'UnauthorizedOperation':
      return `You are not authorized to perform this operation. User: ${principal} is not authorized to perform: ${full} because no identity-based policy allows the ${full} action`;
    case 'ExpiredToken':
    case 'ExpiredTokenException':
      return 'The security token included in the request is expired';
    case 'RequestExpired':
      return 'Request has expired.';
    case 'ValidationError':
      return `1 validation error detected: Value at '${lowerFirst(action)}' failed to satisfy constraint`;
    default:
      return `${code} (injected)`;
  }
}

export async function startAwsServer(
  data: Partial<RawInputs> = {},
  opts: AwsServerOptions = {},
): Promise<AwsServer> {
  let current = data;
  const requests: AwsRequest[] = [];
  const ops = operations(opts.pageSize, opts);
  const faults = (opts.faults ?? []).map((f) => ({ ...f, left: f.times ?? Number.POSITIVE_INFINITY }));
  const principal = opts.principal ?? 'arn:aws:sts::111122223333:assumed-role/casdoctor-readonly/casdoctor';
  const timers = new Set<NodeJS.Timeout>();
  let requestCounter = 0;

  const matches = (pattern: string, service: string, action: string) =>
    pattern === '*' || pattern === action || pattern === `${service}:${action}` || pattern === `${service}:*`;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const requestId = `00000000-0000-4000-8000-${String(++requestCounter).padStart(12, '0')}`;
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://x');
      const credential = /Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(
        String(req.headers.authorization ?? ''),
      );
      const scope = credential?.[2];

      let service: AwsService | 'unknown' = 'unknown';
      let action = '';
      let input: Record<string, unknown>;
      let op: Operation | undefined;
      let xmlns = '';
      const eksPath = /^\/clusters\/([^/]+)\/node-groups\/([^/]+)$/.exec(url.pathname);
      const podIdentityPath = /^\/clusters\/([^/]+)\/pod-identity-associations(?:\/([^/]+))?$/.exec(
        url.pathname,
      );
      if (podIdentityPath && (scope === 'eks' || scope === undefined)) {
        service = 'eks';
        const clusterName = decodeURIComponent(podIdentityPath[1]);
        if (podIdentityPath[2]) {
          action = 'DescribePodIdentityAssociation';
          input = { clusterName, associationId: decodeURIComponent(podIdentityPath[2]) };
        } else {
          action = 'ListPodIdentityAssociations';
          input = {
            clusterName,
            ...(url.searchParams.get('namespace') ? { namespace: url.searchParams.get('namespace') } : {}),
            ...(url.searchParams.get('serviceAccount')
              ? { serviceAccount: url.searchParams.get('serviceAccount') }
              : {}),
          };
        }
        op = req.method === 'GET' ? ops.eks[action] : undefined;
      } else if (eksPath && (scope === 'eks' || scope === undefined)) {
        service = 'eks';
        action = 'DescribeNodegroup';
        input = {
          clusterName: decodeURIComponent(eksPath[1]),
          nodegroupName: decodeURIComponent(eksPath[2]),
        };
        op = req.method === 'GET' ? ops.eks.DescribeNodegroup : undefined;
      } else if (typeof req.headers['x-amz-target'] === 'string' && req.headers['x-amz-target'].startsWith('CloudTrail_20131101.')) {
        service = 'cloudtrail';
        action = req.headers['x-amz-target'].slice('CloudTrail_20131101.'.length);
        op = ops.cloudtrail[action];
        try {
          input = JSON.parse(body || '{}') as Record<string, unknown>;
        } catch {
          input = {};
        }
      } else {
        const form = new Map(new URLSearchParams(body));
        action = form.get('Action') ?? '';
        const svc = SERVICES[form.get('Version') ?? ''];
        if (svc && (scope === undefined || scope === svc.service)) {
          service = svc.service;
          xmlns = svc.xmlns;
          op = ops[service][action];
          if (op)
            input = fromQuery(form, '', deref(op.schema[4]), service === 'ec2') as Record<string, unknown>;
          else input = Object.fromEntries([...form].filter(([k]) => k !== 'Action' && k !== 'Version'));
        } else input = Object.fromEntries(form);
      }
      requests.push({ service, action, region: credential?.[1], params: input, method: req.method ?? '' });

      const respond = (status: number, payload: string, headers: Record<string, string>) => {
        const go = () => {
          if (res.destroyed) return;
          res.writeHead(status, {
            'x-amzn-RequestId': requestId,
            'Content-Length': String(Buffer.byteLength(payload)),
            ...headers,
          });
          res.end(payload);
        };
        const delay = Object.entries(opts.delays ?? {}).find(([p]) => matches(p, service, action))?.[1] ?? 0;
        if (delay > 0) {
          const t = setTimeout(() => {
            timers.delete(t);
            go();
          }, delay);
          timers.add(t);
        } else go();
      };

      const misbehave = (h: AwsHostile) => {
        const stopped = () => res.destroyed || res.writableEnded;
        const xml = service === 'ec2' ? 'text/xml;charset=UTF-8' : 'text/xml';
        if (h.mode === 'trickle') {
          res.writeHead(200, { 'x-amzn-RequestId': requestId, 'Content-Type': xml });
          const t = setInterval(() => {
            if (stopped()) {
              clearInterval(t);
              timers.delete(t);
            } else res.write(' ');
          }, h.intervalMs ?? 200);
          timers.add(t);
          return;
        }
        if (h.mode === 'endless-body') {
          res.writeHead(200, { 'x-amzn-RequestId': requestId, 'Content-Type': xml });
          res.write(`<${action}Response xmlns="${xmlns}"><${action}Result><AutoScalingGroups>`);
          const item = Buffer.from(`<member><AutoScalingGroupName>${'g'.repeat(200)}</AutoScalingGroupName></member>`.repeat(256));
          const pump = () => {
            while (!stopped() && res.write(item));
            if (!stopped()) res.once('drain', pump);
          };
          pump();
          return;
        }
        res.writeHead(200, { 'x-amzn-RequestId': requestId, 'Content-Type': xml, 'Content-Encoding': 'gzip' });
        pumpGzipBomb(res, h.bytes);
      };

      const fail = (e: ApiError) => {
        if (service === 'cloudtrail') {
          return respond(e.status, JSON.stringify({ __type: e.code, message: e.message }), { 'Content-Type': 'application/x-amz-json-1.1' });
        }
        if (service === 'eks') {
          return respond(e.status, JSON.stringify({ message: e.message }), {
            'Content-Type': 'application/json',
            'x-amzn-ErrorType': e.code,
          });
        }
        if (service === 'ec2') {
          return respond(
            e.status,
            `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${escapeXml(e.code)}</Code><Message>${escapeXml(e.message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`,
            { 'Content-Type': 'text/xml;charset=UTF-8' },
          );
        }
        return respond(
          e.status,
          `<ErrorResponse xmlns="${xmlns || SERVICES['2011-01-01'].xmlns}">\n  <Error>\n    <Type>${e.status >= 500 ? 'Receiver' : 'Sender'}</Type>\n    <Code>${escapeXml(e.code)}</Code>\n    <Message>${escapeXml(e.message)}</Message>\n  </Error>\n  <RequestId>${requestId}</RequestId>\n</ErrorResponse>\n`,
          { 'Content-Type': 'text/xml' },
        );
      };

      if (service === 'unknown')
        return fail(
          new ApiError('UnknownOperationException', `unknown service for ${req.method} ${url.pathname}`),
        );
      for (const f of faults) {
        if (f.left <= 0 || !matches(f.action, service, action)) continue;
        f.left--;
        const code = GENERIC_CODES[service][f.code] ?? f.code;
        return fail(
          new ApiError(
            code,
            f.message ?? defaultMessage(code, service, action, principal),
            f.status ?? DEFAULT_STATUS[code] ?? 400,
          ),
        );
      }
      if (!op)
        return fail(new ApiError('InvalidAction', `The action ${action} is not valid for this web service.`));

      const hostile = (opts.hostile ?? []).find((h) => matches(h.action, service, action));
      if (hostile && hostile.mode !== 'repeat-token' && hostile.mode !== 'endless-token') {
        return misbehave(hostile);
      }
      const tokenName = service === 'iam' ? 'Marker' : 'NextToken';
      let hostileN = 0;
      if (hostile) {
        // the token the client sends back is the server's own nonsense: answer the first page again
        hostileN = Number(/^hostile-(\d+)$/.exec(String(input[tokenName] ?? ''))?.[1] ?? 0) + 1;
        delete input[tokenName];
      }

      let output: Record<string, unknown>;
      try {
        output = op.handle(input, current);
      } catch (e) {
        if (e instanceof ApiError) return fail(e);
        throw e;
      }
      if (hostile) {
        output[tokenName] = hostile.mode === 'repeat-token' ? 'hostile-1' : `hostile-${hostileN}`;
        if (service === 'iam') output.IsTruncated = true;
      }
      const outSchema = deref(op.schema[5]);
      if (service === 'cloudtrail') {
        return respond(200, JSON.stringify(jsonValue(output, outSchema)), { 'Content-Type': 'application/x-amz-json-1.1' });
      }
      if (service === 'eks') {
        return respond(200, JSON.stringify(jsonValue(output, outSchema)), {
          'Content-Type': 'application/json',
        });
      }
      if (service === 'ec2') {
        return respond(
          200,
          `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${xmlns}"><requestId>${requestId}</requestId>${xmlValue(output, outSchema, true)}</${action}Response>`,
          { 'Content-Type': 'text/xml;charset=UTF-8' },
        );
      }
      return respond(
        200,
        `<${action}Response xmlns="${xmlns}"><${action}Result>${xmlValue(output, outSchema, false)}</${action}Result><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>`,
        { 'Content-Type': 'text/xml' },
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    setData(d) {
      current = d;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
