// Finding the provider's Deployment, its flags and the files it mounts from ConfigMaps; the proto era of its image;
// CA's --cloud-config through CA's volume mounts. Pure: reads RawInputs objects only.
import type { CaConfig } from '../../model/ca-config.js';
import type { ExternalGrpcConfigInput, GrpcSchemaEra } from '../../model/externalgrpc.js';
import type { ConfigMap, Container, Deployment } from '../../model/k8s.js';
import type { RawInputs } from '../../model/snapshot.js';
import { LAST_UPDATED_ANNOTATION, NODEGROUP_STATUS_CONFIGMAP, NODEGROUP_STATUS_KEY, scrubExternalGrpcCredentials } from './config.js';

export const PROVIDER_IMAGE_NAME = 'cluster-autoscaler-grpc-cloud-provider';

export interface ProviderDeployment {
  deployment: Deployment;
  container: Container;
  image?: string;
  /** main.go flags with the provider's defaults (README "命令行参数"). */
  namespace: string;
  statusConfigMap: string;
  configFile: string;
  createParallelism: number;
  /** --delete-parallelism (main.go:60@f792442, default 1): InProcess records allowed per delete stage. */
  deleteParallelism: number;
}

/** `--name=value` / `--name value` from an argument list; the last occurrence wins (Go flag). */
export function flagValue(args: string[], name: string): string | undefined {
  let v: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    for (const prefix of [`--${name}`, `-${name}`]) {
      if (a.startsWith(`${prefix}=`)) v = a.slice(prefix.length + 1);
      else if (a === prefix && i + 1 < args.length) v = args[i + 1];
    }
  }
  return v;
}

function imageRepoName(image: string): string {
  const noDigest = image.split('@')[0];
  const lastSlash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  const repo = colon > lastSlash ? noDigest.slice(0, colon) : noDigest;
  return repo.slice(repo.lastIndexOf('/') + 1);
}

/** The provider's Deployment: a container whose image is named cluster-autoscaler-grpc-cloud-provider, or whose
 * arguments carry the provider's own flags (--nodegroup-status-cm / --nodegroup-config). */
export function findProviderDeployment(deployments: Deployment[]): ProviderDeployment | undefined {
  for (const deployment of deployments) {
    for (const container of deployment.spec?.template?.spec?.containers ?? []) {
      const args = [...(container.command ?? []), ...(container.args ?? [])];
      const byImage = imageRepoName(container.image ?? '') === PROVIDER_IMAGE_NAME;
      const byFlags = args.some((a) => /^--?(nodegroup-status-cm|nodegroup-config)(=|$)/.test(a));
      if (!byImage && !byFlags) continue;
      const cp = Number(flagValue(args, 'create-parallelism') ?? '5');
      const dp = Number(flagValue(args, 'delete-parallelism') ?? '1');
      return {
        deployment,
        container,
        ...(container.image ? { image: container.image } : {}),
        namespace: flagValue(args, 'namespace') ?? 'kube-system',
        statusConfigMap: flagValue(args, 'nodegroup-status-cm') ?? NODEGROUP_STATUS_CONFIGMAP,
        configFile: flagValue(args, 'nodegroup-config') ?? 'nodegroup-config.yaml',
        createParallelism: Number.isFinite(cp) ? cp : 5,
        deleteParallelism: Number.isFinite(dp) ? dp : 1,
      };
    }
  }
  return undefined;
}

/**
 * The proto schema era of the provider's image. Rule: an image whose repository is named
 * cluster-autoscaler-grpc-cloud-provider is 'pre-1.35' whatever its tag — every commit of the repo up to f792442
 * (2026-03-02; tags 1.25.0, Makefile VER v1.1.0) pins k8s.io/autoscaler/cluster-autoscaler
 * v0.0.0-20220902140806-e8d3e9b1d986 (go.mod:19), whose proto has NodeGroupTemplateNodeInfoResponse.nodeInfo = 1 and
 * only options fields 1-4. Any other image is 'unknown' unless the caller knows better (`override`).
 */
export function providerSchemaEra(image: string | undefined, override?: GrpcSchemaEra): GrpcSchemaEra {
  if (override) return override;
  if (image && imageRepoName(image) === PROVIDER_IMAGE_NAME) return 'pre-1.35';
  return 'unknown';
}

interface MountedFile {
  configMap: ConfigMap;
  key: string;
  text: string;
}

/** The ConfigMap (name, key) a container sees at `path` through its volumeMounts (+ subPath / items); no data needed. */
export function mountedConfigMapRef(
  deployment: Deployment,
  container: Container,
  path: string,
): { namespace: string; name: string; key: string } | undefined {
  const ns = deployment.metadata.namespace ?? 'default';
  const mounts = Array.isArray(container.volumeMounts) ? (container.volumeMounts as unknown[]) : [];
  for (const raw of mounts) {
    if (typeof raw !== 'object' || raw === null) continue;
    const m = raw as { name?: unknown; mountPath?: unknown; subPath?: unknown };
    if (typeof m.name !== 'string' || typeof m.mountPath !== 'string') continue;
    const subPath = typeof m.subPath === 'string' ? m.subPath : undefined;
    let rel: string | undefined;
    if (subPath !== undefined) {
      if (m.mountPath === path) rel = subPath;
    } else {
      const dir = m.mountPath.endsWith('/') ? m.mountPath : `${m.mountPath}/`;
      if (path.startsWith(dir)) rel = path.slice(dir.length);
    }
    if (rel === undefined) continue;
    const vol = deployment.spec?.template?.spec?.volumes?.find((v) => v.name === m.name);
    const cmRef = vol?.configMap as { name?: unknown; items?: unknown } | undefined;
    if (!cmRef || typeof cmRef.name !== 'string') continue;
    const items = Array.isArray(cmRef.items) ? (cmRef.items as Array<{ key?: unknown; path?: unknown }>) : [];
    const item = items.find((i) => i.path === rel);
    const key = item && typeof item.key === 'string' ? item.key : rel;
    return { namespace: ns, name: cmRef.name, key };
  }
  return undefined;
}

/** The ConfigMap key a container sees at `path` (volumeMounts + subPath / items), when the ConfigMap is in the input. */
export function mountedConfigMapFile(
  deployment: Deployment,
  container: Container,
  path: string,
  configMaps: ConfigMap[],
): MountedFile | undefined {
  const ref = mountedConfigMapRef(deployment, container, path);
  if (!ref) return undefined;
  const cm = configMaps.find((c) => c.metadata.name === ref.name && (c.metadata.namespace ?? 'default') === ref.namespace);
  const text = cm?.data?.[ref.key];
  if (cm && text !== undefined) return { configMap: cm, key: ref.key, text };
  return undefined;
}

/**
 * The provider's config inputs. RawInputs.externalGrpcConfigs when the gatherer filled it; otherwise the
 * nodegroup-status ConfigMap and the file the provider Deployment mounts at --nodegroup-config, both scrubbed.
 */
export function externalGrpcConfigInputs(
  raw: RawInputs & { externalGrpcConfigs?: ExternalGrpcConfigInput[] },
): ExternalGrpcConfigInput[] {
  // the gatherer's inputs (a bare nodegroup-config.yaml) first; the ConfigMaps fill in the kinds they lack
  const given = raw.externalGrpcConfigs ?? [];
  const out: ExternalGrpcConfigInput[] = [...given];
  const hasCm = given.some((g) => g.source.kind === 'configmap');
  const hasFile = given.some((g) => g.source.kind === 'file');
  const dep = findProviderDeployment(raw.deployments);
  const ns = dep?.namespace ?? 'kube-system';
  const name = dep?.statusConfigMap ?? NODEGROUP_STATUS_CONFIGMAP;
  const cm = raw.configMaps.find((c) => c.metadata.name === name && (c.metadata.namespace ?? 'default') === ns);
  if (cm && !hasCm) {
    const lastUpdated = cm.metadata.annotations?.[LAST_UPDATED_ANNOTATION];
    out.push({
      source: { kind: 'configmap', namespace: ns, name },
      text: scrubExternalGrpcCredentials(cm.data?.[NODEGROUP_STATUS_KEY] ?? '').text,
      ...(lastUpdated ? { lastUpdated } : {}),
    });
  }
  if (dep && !hasFile) {
    const f = mountedConfigMapFile(dep.deployment, dep.container, dep.configFile, raw.configMaps);
    if (f) {
      const fromConfigMap = { namespace: f.configMap.metadata.namespace ?? 'default', name: f.configMap.metadata.name ?? '', key: f.key };
      out.push({ source: { kind: 'file', path: dep.configFile, fromConfigMap }, text: scrubExternalGrpcCredentials(f.text).text });
    }
  }
  return out;
}

/** Whether the input holds the provider's config (for providerFor when CA itself is not in the input). */
export function hasExternalGrpcInput(raw: RawInputs & { externalGrpcConfigs?: ExternalGrpcConfigInput[] }): boolean {
  return externalGrpcConfigInputs(raw).length > 0;
}

/** CA's --cloud-config text through CA's own volume mounts (the seed mounts ConfigMap cluster-autoscaler-cloud-config at /config). */
export function caCloudConfigText(raw: RawInputs, ca: CaConfig): { path: string; text?: string; from?: string } | undefined {
  const path = flagValue([...ca.deploymentArgs, ...ca.overrideArgs], 'cloud-config');
  if (!path) return undefined;
  const depName = ca.deployment?.name;
  const depNs = ca.deployment?.namespace;
  const dep = raw.deployments.find((d) => d.metadata.name === depName && d.metadata.namespace === depNs);
  const container = dep?.spec?.template?.spec?.containers?.find((c) => c.name === ca.deployment?.container);
  if (!dep || !container) return { path };
  const f = mountedConfigMapFile(dep, container, path, raw.configMaps);
  if (!f) return { path };
  return { path, text: f.text, from: `ConfigMap ${f.configMap.metadata.namespace ?? 'default'}/${f.configMap.metadata.name ?? ''} key ${f.key}` };
}

/**
 * The ConfigMaps casdoctor GETs (read-only, by name) on a live externalgrpc cluster: the provider's nodegroup-status in
 * its --namespace, the ConfigMap mounted at its --nodegroup-config, and CA's --cloud-config ConfigMap from CA's volumes.
 */
export function externalGrpcConfigMapRefs(
  deployments: Deployment[],
  ca: CaConfig,
): Array<{ namespace: string; name: string; why: string }> {
  const out: Array<{ namespace: string; name: string; why: string }> = [];
  const add = (namespace: string, name: string, why: string) => {
    if (!out.some((r) => r.namespace === namespace && r.name === name)) out.push({ namespace, name, why });
  };
  const dep = findProviderDeployment(deployments);
  add(dep?.namespace ?? 'kube-system', dep?.statusConfigMap ?? NODEGROUP_STATUS_CONFIGMAP, "the provider's state (--nodegroup-status-cm)");
  if (dep) {
    const ref = mountedConfigMapRef(dep.deployment, dep.container, dep.configFile);
    if (ref) add(ref.namespace, ref.name, `the provider's --nodegroup-config ${dep.configFile}`);
  }
  const path = flagValue([...ca.deploymentArgs, ...ca.overrideArgs], 'cloud-config');
  const caDep = deployments.find((d) => d.metadata.name === ca.deployment?.name && d.metadata.namespace === ca.deployment?.namespace);
  const container = caDep?.spec?.template?.spec?.containers?.find((c) => c.name === ca.deployment?.container);
  if (path && caDep && container) {
    const ref = mountedConfigMapRef(caDep, container, path);
    if (ref) add(ref.namespace, ref.name, `CA's --cloud-config ${path}`);
  }
  return out;
}
