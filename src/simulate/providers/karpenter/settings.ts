// Karpenter's controller Deployment and its settings, read from the Deployment's container env and args (pure). Karpenter
// reads each setting from a flag whose default is the environment variable (karpenter pkg/operator/options/options.go,
// karpenter-provider-aws pkg/operator/options/options.go: fs.StringVar(&o.ClusterName, "cluster-name",
// env.WithDefaultString("CLUSTER_NAME", ""), ...)), so a flag in args wins over the env var.
import type { Container, Deployment } from '../../../model/k8s.js';
import { type KarpenterDeploymentSettings, karpenterSettingsFromEnv } from '../../../model/karpenter.js';

/** The controller image of the Helm chart and its mirrors: public.ecr.aws/karpenter/controller:1.8.1@sha256:… */
const CONTROLLER_IMAGE_RE = /(?:^|\/)karpenter\/controller(?::|@|$)/;
const HELM_NAME_LABEL = 'app.kubernetes.io/name';

/**
 * The env vars that hold Karpenter's settings: none is a secret, so `casdoctor snapshot` keeps their values in the
 * Karpenter Deployment (every other env value is dropped).
 */
export const KARPENTER_SETTINGS_ENV: readonly string[] = [
  'FEATURE_GATES',
  'VM_MEMORY_OVERHEAD_PERCENT',
  'RESERVED_ENIS',
  'CLUSTER_NAME',
  'CLUSTER_ENDPOINT',
  'BATCH_MAX_DURATION',
  'BATCH_IDLE_DURATION',
  'MIN_VALUES_POLICY',
  'PREFERENCE_POLICY',
  'INTERRUPTION_QUEUE',
  'IGNORE_DRA_REQUESTS',
  'ISOLATED_VPC',
  'LOG_LEVEL',
];

export interface FoundKarpenter {
  deployment: Deployment;
  container: Container;
  /** How it was recognised: its controller image, or the Helm chart's labels and a container named "controller". */
  by: 'image' | 'helm-labels';
}

function controllerByImage(d: Deployment): Container | undefined {
  return d.spec?.template?.spec?.containers?.find((c) => typeof c.image === 'string' && CONTROLLER_IMAGE_RE.test(c.image));
}

function controllerByLabels(d: Deployment): Container | undefined {
  const labels = d.metadata.labels ?? {};
  if (labels[HELM_NAME_LABEL] !== 'karpenter') return undefined;
  const containers = d.spec?.template?.spec?.containers ?? [];
  return containers.find((c) => c.name === 'controller') ?? (containers.length === 1 ? containers[0] : undefined);
}

/**
 * Karpenter's controller Deployment in any namespace: by its image first (a renamed chart keeps it), else by the Helm
 * chart's label app.kubernetes.io/name=karpenter. Several: the one with replicas, then by namespace/name.
 */
export function findKarpenterDeployment(deployments: readonly Deployment[]): FoundKarpenter | undefined {
  const found: FoundKarpenter[] = [];
  for (const d of deployments) {
    const byImage = controllerByImage(d);
    if (byImage) {
      found.push({ deployment: d, container: byImage, by: 'image' });
      continue;
    }
    const byLabels = controllerByLabels(d);
    if (byLabels) found.push({ deployment: d, container: byLabels, by: 'helm-labels' });
  }
  const key = (f: FoundKarpenter) => `${f.deployment.metadata.namespace ?? ''}/${f.deployment.metadata.name}`;
  found.sort(
    (a, b) =>
      (a.by === 'image' ? 0 : 1) - (b.by === 'image' ? 0 : 1) ||
      (running(b.deployment) ? 1 : 0) - (running(a.deployment) ? 1 : 0) ||
      (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0),
  );
  return found[0];
}

function running(d: Deployment): boolean {
  return (d.spec?.replicas ?? 1) > 0;
}

/** "1.8.1" from a controller image tag (`:1.8.1`, `:v0.37.0`, `:1.8.1@sha256:…`); undefined for a digest-only image. */
export function karpenterVersionFromImage(image: string | undefined): string | undefined {
  if (!image) return undefined;
  const noDigest = image.split('@')[0];
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  if (colon <= slash) return undefined;
  const m = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(noDigest.slice(colon + 1));
  return m?.[1];
}

/** The version the Helm chart stamps on the Deployment: app.kubernetes.io/version, else helm.sh/chart karpenter-<v>. */
function versionFromLabels(labels: Record<string, string> | undefined): string | undefined {
  const app = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(labels?.['app.kubernetes.io/version'] ?? '');
  if (app) return app[1];
  return /^karpenter-v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(labels?.['helm.sh/chart'] ?? '')?.[1];
}

/** Env as Karpenter sees it: literal values; a valueFrom (fieldRef, secretKeyRef, …) is known by name only. */
function envOf(container: Container): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const e of container.env ?? []) {
    if (typeof e?.name !== 'string') continue;
    env[e.name] = typeof e.value === 'string' ? e.value : undefined;
  }
  return env;
}

/** `--flag=value` and `--flag value` in command and args, as the env var each flag defaults from (cluster-name → CLUSTER_NAME). */
function flagsAsEnv(container: Container): Record<string, string> {
  const out: Record<string, string> = {};
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(argv[i]);
    if (!m) continue;
    let value = m[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) continue;
      value = next;
      i++;
    }
    out[m[1].replace(/-/g, '_').toUpperCase()] = value;
  }
  return out;
}

/** The settings of a Karpenter controller Deployment (defaults where unset or unparsable). */
export function karpenterSettingsOf(found: FoundKarpenter): KarpenterDeploymentSettings {
  const { deployment: d, container } = found;
  const env = { ...envOf(container), ...flagsAsEnv(container) };
  const ns = d.metadata.namespace ?? 'default';
  return karpenterSettingsFromEnv(env, {
    namespace: ns,
    name: d.metadata.name,
    version: karpenterVersionFromImage(container.image) ?? versionFromLabels(d.metadata.labels),
    ...(container.image ? { image: container.image } : {}),
    source: `Deployment ${ns}/${d.metadata.name}`,
  });
}

/** Finds Karpenter's Deployment and reads its settings; undefined when there is none. */
export function karpenterSettingsFromDeployments(
  deployments: readonly Deployment[],
): KarpenterDeploymentSettings | undefined {
  const found = findKarpenterDeployment(deployments);
  return found ? karpenterSettingsOf(found) : undefined;
}

/** Whether a Deployment is Karpenter's controller (for `casdoctor snapshot`, which keeps its settings' values). */
export function isKarpenterControllerDeployment(d: Deployment): boolean {
  return controllerByImage(d) !== undefined || controllerByLabels(d) !== undefined;
}
