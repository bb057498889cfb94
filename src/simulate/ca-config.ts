import { scrubArgs } from './scrub-args.js';
import type { AutoDiscoveryConfig, CaConfig, CaFlags, CaVersion, FlagOrigin, FlagValue, GpuLimit, NodeGroupSpec, ParsedFlag, ParsedFlags, VersionedFlag } from '../model/ca-config.js';
import type { Container, Deployment } from '../model/k8s.js';
import { BOOL_FLAGS, DEF_BY_NAME, FLAG_DEFS, type FlagDef, KNOWN_FLAGS, NEWEST_KNOWN_MINOR, OTHER_FLAG_VERSIONS, SHORTHANDS } from './ca-config/flags.js';
import { convert, parseGoInt, parseGpuLimit } from './ca-config/values.js';

// Go's bool flag syntax, as CA's other readers of flag values take it
export { parseGoBool } from './ca-config/values.js';

/** The CA Deployment: any namespace, the first container whose image contains "cluster-autoscaler". */
export function findCaDeployment(
  deployments: Deployment[],
): { deployment: Deployment; container: Container } | undefined {
  for (const deployment of deployments) {
    const container = caContainerOf(deployment);
    if (container) return { deployment, container };
  }
  return undefined;
}

// cluster-autoscaler-grpc-cloud-provider (a CA cloud-provider server) carries "cluster-autoscaler" in its image name
// too: an image whose repository name goes on to name a provider or gRPC server is not CA
function isCaImage(image: string): boolean {
  if (!image.includes('cluster-autoscaler')) return false;
  const repo = image.replace(/@.*$/, '').replace(/:[^/]*$/, '').split('/').pop() ?? '';
  return !/^cluster-autoscaler-.*(provider|grpc)/.test(repo);
}

function caContainerOf(deployment: Deployment): Container | undefined {
  return deployment.spec?.template?.spec?.containers?.find((ct) => isCaImage(ct.image ?? ''));
}

/** CA version from the image tag. Only plain vX.Y.Z tags count; anything else assumes the newest known minor. */
export function parseCaVersion(image: string): { version?: string; minor?: number; known: boolean } {
  const withoutDigest = image.split('@')[0];
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const tag = colon > lastSlash ? withoutDigest.slice(colon + 1) : undefined;
  const m = tag ? /^v?(\d+)\.(\d+)\.(\d+)$/.exec(tag) : null;
  if (m && m[1] === '1') return { version: tag, minor: Number(m[2]), known: true };
  return { version: tag || undefined, minor: NEWEST_KNOWN_MINOR, known: false };
}

/** The arguments CA sees: `command` after the cluster-autoscaler binary, then `args`. */
export function caContainerArgs(container: Container): string[] {
  const command = container.command ?? [];
  const args = container.args ?? [];
  if (command.length === 0) return [...args];
  const binIdx = command.findIndex((part) => /(^|\/)cluster-autoscaler$/.test(part));
  if (binIdx >= 0) return [...command.slice(binIdx + 1), ...args];
  // e.g. ["sh", "-c", "./cluster-autoscaler --v=4 ..."]: split the script after the binary.
  const script = command.find((part) => /(^|[\s/])cluster-autoscaler(\s|$)/.test(part));
  if (script) {
    const words = script.trim().split(/\s+/);
    const i = words.findIndex((w) => /(^|\/)cluster-autoscaler$/.test(w));
    return [...words.slice(i + 1), ...args];
  }
  return [...command.filter((part) => part.startsWith('-')), ...args];
}

/**
 * Go pflag semantics as CA uses them (CA main.go: kube_flag.InitFlags, which normalises "_" to "-"):
 * `--f=v`, `--f v`, bare `--bool`, `--bool=false` (never `--bool false`), `-v=4` / `-v 4` / `-v4`, `--` ends flags.
 */
export function parseCaArgs(args: string[]): ParsedFlags {
  const out: ParsedFlags = { flags: [], values: {}, unknownFlags: [], positional: [], errors: [] };
  const push = (name: string, value: string, raw: string) => {
    out.flags.push({ name, value, raw } satisfies ParsedFlag);
    if (!out.values[name]) out.values[name] = [];
    out.values[name].push(value);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      out.positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const body = arg.slice(2);
      const eq = body.indexOf('=');
      const name = (eq >= 0 ? body.slice(0, eq) : body).replaceAll('_', '-');
      if (!KNOWN_FLAGS.has(name)) {
        out.unknownFlags.push(`--${name}`);
        out.errors.push(`unknown flag: --${name}`);
        continue;
      }
      if (eq >= 0) push(name, body.slice(eq + 1), arg);
      else if (BOOL_FLAGS.has(name)) push(name, 'true', arg);
      else if (i + 1 < args.length) {
        push(name, args[i + 1], `${arg} ${args[i + 1]}`);
        i++;
      } else out.errors.push(`flag needs an argument: --${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg[1];
      const name = SHORTHANDS[letter];
      if (!name) {
        out.unknownFlags.push(arg.split('=')[0]);
        out.errors.push(`unknown shorthand flag: '${letter}' in ${arg}`);
        continue;
      }
      const rest = arg.slice(2);
      if (rest.startsWith('=')) push(name, rest.slice(1), arg);
      else if (rest !== '') push(name, rest, arg);
      else if (i + 1 < args.length) {
        push(name, args[i + 1], `${arg} ${args[i + 1]}`);
        i++;
      } else out.errors.push(`flag needs an argument: 'v' in -v`);
      continue;
    }
    out.positional.push(arg);
  }
  return out;
}

/**
 * `--node-group-auto-discovery` specs. CA: cloudprovider/aws/aws_manager.go parseASGAutoDiscoverySpec; all specs are merged
 * into one tag map and ANDed (auto_scaling_groups.go buildAsgTags, kubernetes/autoscaler#7009), the later value winning.
 */
export function parseAutoDiscoverySpecs(specs: string[]): AutoDiscoveryConfig {
  const result: AutoDiscoveryConfig = { tags: {}, specs: [], errors: [] };
  for (const spec of specs) {
    const parsed = parseOneAutoDiscoverySpec(spec);
    result.specs.push({ raw: spec, tags: parsed.tags, ...(parsed.error ? { error: parsed.error } : {}) });
    if (parsed.error) {
      result.errors.push(parsed.error);
      continue;
    }
    Object.assign(result.tags, parsed.tags);
  }
  return result;
}

function parseOneAutoDiscoverySpec(spec: string): {
  tags: Record<string, string | undefined>;
  error?: string;
} {
  const colon = spec.indexOf(':');
  if (colon < 0) {
    return {
      tags: {},
      error: `invalid node group auto discovery spec specified via --node-group-auto-discovery: ${spec}`,
    };
  }
  const discoverer = spec.slice(0, colon);
  if (discoverer !== 'asg') return { tags: {}, error: `unsupported discoverer specified: ${discoverer}` };
  const param = spec.slice(colon + 1);
  const eq = param.indexOf('=');
  if (eq < 0) return { tags: {}, error: `invalid key=value pair [${param}]` }; // Go prints the []string with %s
  const key = param.slice(0, eq);
  const value = param.slice(eq + 1);
  if (key !== 'tag') {
    return {
      tags: {},
      error: `unsupported parameter key "${key}" is specified for discoverer "${discoverer}". The only supported key is "tag"`,
    };
  }
  if (value === '') return { tags: {}, error: 'tag value not supplied' };
  const tags: Record<string, string | undefined> = {};
  for (const label of value.split(',')) {
    const e = label.indexOf('=');
    // CA stores "" for both `key` and `key=`; an empty value becomes a tag-key filter (aws_wrapper.go getAutoscalingGroupsByTags).
    const v = e >= 0 ? label.slice(e + 1) : '';
    tags[e >= 0 ? label.slice(0, e) : label] = v === '' ? undefined : v;
  }
  return { tags };
}

/** One `--nodes` spec. CA: config/dynamic/node_group_spec.go SpecFromString with scale-to-zero support (AWS). */
export function parseNodeGroupSpec(value: string): NodeGroupSpec | { error: string } {
  // auto_scaling_groups.go parseExplicitAsgs and buildAsgFromSpec both wrap the error with this prefix.
  const prefix = 'failed to parse node group spec: failed to parse node group spec: ';
  const first = value.indexOf(':');
  const second = first >= 0 ? value.indexOf(':', first + 1) : -1;
  if (second < 0) return { error: `${prefix}wrong nodes configuration: ${value}` };
  const [minS, maxS, name] = [value.slice(0, first), value.slice(first + 1, second), value.slice(second + 1)];
  const min = parseGoInt(minS);
  if (min === undefined) return { error: `${prefix}failed to set min size: ${minS}, expected integer` };
  const max = parseGoInt(maxS);
  if (max === undefined) return { error: `${prefix}failed to set max size: ${maxS}, expected integer` };
  if (min < 0) return { error: `${prefix}invalid node group spec: min size must be >= 0` };
  if (max < min)
    return { error: `${prefix}invalid node group spec: max size must be greater or equal to min size` };
  if (name === '') return { error: `${prefix}invalid node group spec: name must not be blank` };
  return { raw: value, min, max, name };
}

function supportedIn(def: { since?: number; until?: number }, minor: number): boolean {
  return (def.since === undefined || minor >= def.since) && (def.until === undefined || minor < def.until);
}

/** The CA minors that have a flag (by its name without dashes); undefined for a flag no CA version has. */
export function flagVersions(name: string): { since?: number; until?: number } | undefined {
  const def = DEF_BY_NAME.get(name)?.def;
  if (def) return { since: def.since, until: def.until };
  if (OTHER_FLAG_VERSIONS.has(name)) return OTHER_FLAG_VERSIONS.get(name);
  return KNOWN_FLAGS.has(name) ? {} : undefined;
}

/** "unknown flag: --x (not in cluster-autoscaler 1.N)" plus where the flag exists, for a flag another version has. */
function versionedFlagOf(
  name: string,
  range: { since?: number; until?: number },
  minor: number,
): VersionedFlag {
  return {
    flag: `--${name}`,
    ...(range.since !== undefined && minor < range.since ? { since: range.since } : {}),
    ...(range.until !== undefined && minor >= range.until ? { until: range.until } : {}),
  };
}

/** CA's version as reports print it: the image tag ("v1.32.1"), else the minor casdoctor assumes ("1.32"). */
export function caVersionText(ca: CaConfig): string {
  return ca.version.version ?? `1.${ca.version.minor}`;
}

/** CA's effective configuration for its version: defaults, then the Deployment's args, then --ca-args overrides. */
export function buildCaConfig(input: { deployment?: Deployment; overrideArgs?: string[] }): CaConfig {
  const container = input.deployment ? caContainerOf(input.deployment) : undefined;
  const found = !!container;
  const image = container?.image;
  const parsedVersion = image ? parseCaVersion(image) : undefined;
  const version: CaVersion = {
    ...(image ? { image } : {}),
    ...(parsedVersion?.version ? { version: parsedVersion.version } : {}),
    minor: parsedVersion?.minor ?? NEWEST_KNOWN_MINOR,
    known: parsedVersion?.known ?? false,
  };
  const minor = version.minor;
  const deploymentArgs = container ? caContainerArgs(container) : [];
  const overrideArgs = input.overrideArgs ?? [];
  const fromDeployment = parseCaArgs(deploymentArgs);
  const fromOverride = parseCaArgs(overrideArgs);

  const errors: string[] = [...fromDeployment.errors, ...fromOverride.errors];
  const unknownFlags: string[] = [...fromDeployment.unknownFlags, ...fromOverride.unknownFlags];
  const warnings: string[] = [];
  if (!found) warnings.push(`no cluster-autoscaler Deployment found: using the defaults of CA 1.${minor}`);
  else if (!version.known) {
    warnings.push(
      `CA version not recognised from image ${image ?? '(none)'}: assuming the defaults of CA 1.${NEWEST_KNOWN_MINOR}`,
    );
  }

  const versionedFlags: VersionedFlag[] = [];
  // flags casdoctor only recognises: the same version gate as the typed ones
  for (const parsed of [fromDeployment, fromOverride]) {
    for (const name of Object.keys(parsed.values)) {
      const range = OTHER_FLAG_VERSIONS.get(name);
      if (!range || supportedIn(range, minor)) continue;
      const msg = `unknown flag: --${name} (not in cluster-autoscaler 1.${minor})`;
      if (version.known) {
        unknownFlags.push(`--${name}`);
        versionedFlags.push(versionedFlagOf(name, range, minor));
        errors.push(msg);
      } else warnings.push(msg);
    }
  }
  const flags = {} as Record<keyof CaFlags, FlagValue<unknown>>;
  for (const [key, def] of Object.entries(FLAG_DEFS) as Array<[keyof CaFlags, FlagDef<unknown>]>) {
    const supported = supportedIn(def, minor);
    const overrideRaw = fromOverride.values[def.name];
    const deploymentRaw = fromDeployment.values[def.name];
    // --ca-args replace the Deployment's values of the same flag, also for repeatable flags.
    const raw = overrideRaw ?? deploymentRaw;
    const origin: FlagOrigin = overrideRaw ? 'override' : deploymentRaw ? 'deployment' : 'default';
    const fallback = def.def(minor);
    if (!raw) {
      flags[key] = { value: fallback, origin, supported };
      continue;
    }
    if (!supported) {
      const msg = `unknown flag: --${def.name} (not in cluster-autoscaler 1.${minor})`;
      if (version.known) {
        unknownFlags.push(`--${def.name}`);
        versionedFlags.push(versionedFlagOf(def.name, def, minor));
        errors.push(msg);
      } else warnings.push(msg);
    }
    if (def.kind === 'multi') {
      flags[key] = { value: [...raw], origin, raw: [...raw], supported };
      continue;
    }
    if (def.kind === 'slice') {
      // pflag StringSlice: each occurrence is CSV-split and appended.
      const values = raw.flatMap((r) => (r === '' ? [] : r.split(',').map((s) => s.trim())));
      flags[key] = { value: values, origin, raw: [...raw], supported };
      continue;
    }
    const last = raw[raw.length - 1];
    const conv = convert(def, last);
    if ('error' in conv) {
      errors.push(conv.error);
      flags[key] = { value: fallback, origin, raw: [last], supported };
    } else flags[key] = { value: conv.value, origin, raw: [last], supported };
  }
  const typed = flags as unknown as CaFlags;

  // CA: config/flags/flags.go createAutoscalingOptions.
  if (
    typed.drainPriorityConfig.origin !== 'default' &&
    typed.maxGracefulTerminationSec.origin !== 'default'
  ) {
    errors.push(
      'Invalid configuration, could not use --drain-priority-config together with --max-graceful-termination-sec',
    );
  }
  const gpuLimits: GpuLimit[] = [];
  for (const g of typed.gpuTotal.value) {
    const parsed = parseGpuLimit(g);
    if ('error' in parsed) errors.push(`Failed to parse flags: ${parsed.error}`);
    else gpuLimits.push(parsed);
  }
  const nodeGroupSpecs: NodeGroupSpec[] = [];
  for (const spec of typed.nodes.value) {
    const parsed = parseNodeGroupSpec(spec);
    if ('error' in parsed) errors.push(parsed.error);
    else nodeGroupSpecs.push(parsed);
  }
  const autoDiscovery = parseAutoDiscoverySpecs(typed.nodeGroupAutoDiscovery.value);
  errors.push(...autoDiscovery.errors);
  if (nodeGroupSpecs.length > 0 && typed.nodeGroupAutoDiscovery.value.length > 0) {
    // cloudprovider/aws/README.md: "do not provide a --nodes argument if --node-group-auto-discovery is specified".
    warnings.push('both --nodes and --node-group-auto-discovery are set; the AWS README advises against it');
  }

  return {
    found,
    ...(container && input.deployment
      ? {
          deployment: {
            namespace: input.deployment.metadata.namespace,
            name: input.deployment.metadata.name,
            container: container.name,
            ...(image ? { image } : {}),
            ...(typeof input.deployment.spec?.replicas === 'number'
              ? { replicas: input.deployment.spec.replicas }
              : {}),
          },
        }
      : {}),
    version,
    // what reports quote of CA's command line: secret-like values blanked (they were parsed from the raw arrays above)
    deploymentArgs: scrubArgs(deploymentArgs),
    overrideArgs: scrubArgs(overrideArgs),
    flags: typed,
    nodeGroupSpecs,
    gpuLimits,
    autoDiscovery,
    errors,
    unknownFlags: [...new Set(unknownFlags)],
    versionedFlags: dedupeBy(versionedFlags, (f) => f.flag),
    warnings,
  };
}

function dedupeBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => !seen.has(key(t)) && seen.add(key(t)));
}
