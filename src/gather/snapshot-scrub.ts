// What `casdoctor snapshot` removes before it writes anything: Secret values, credentials in args, env, probes, URLs and
// tags, and the annotations that carry whole manifests (snapshot-writer.ts calls it on every object it writes).
import type { Deployment, KubeObject } from '../model/k8s.js';
import type { DataKind } from '../model/snapshot.js';
import { isKarpenterControllerDeployment, KARPENTER_SETTINGS_ENV } from '../simulate/providers/karpenter/settings.js';
import { isSecretName, scrubArgs, scrubUrlCredentials } from '../simulate/scrub-args.js';

// Annotations that carry whole manifests (with env values and Secret data) or credentials.
const SECRET_ANNOTATION_RE =
  /(^|\/)(last-applied-configuration|original-configuration|original)$|token|secret|passw|credential|private[-_]?key|api[-_]?key|auth[-_]?key/i;
// Credentials that can turn up inside any string (args, messages, annotations), replaced wherever found.
const SECRET_VALUE_PATTERNS: ReadonlyArray<[RegExp, string | ((...m: string[]) => string)]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, '[redacted private key]'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, '[redacted token]'],
  [/\b(?:AKIA|ASIA|AROA|AIDA|ABIA|ACCA)[A-Z0-9]{16}\b/g, '[redacted access key]'],
  // aws_secret_access_key = <40 base64 characters> (credentials files, env dumps), however quoted
  [
    /((?:aws)?[_-]?secret[_-]?access[_-]?key["']?\s*[=:]\s*["']?)[A-Za-z0-9/+=]{40}/gi,
    (_m, head) => `${head}[redacted]`,
  ],
  // GitHub tokens (ghp_ personal, gho_ OAuth, ghu_ user-to-server, ghs_ server-to-server, ghr_ refresh) and fine-grained PATs
  [/\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g, '[redacted token]'],
  // Slack tokens (xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-)
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, '[redacted token]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, (_m, scheme) => `${scheme} [redacted]`],
  [
    /((?:password|passwd|secret|token|api[-_]?key|access[-_]?key|secret[-_]?key)["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)/gi,
    (_m, head) => `${head}[redacted]`,
  ],
  // a secret flag in the split form inside a logged command line: "--password hunter2", "--api-token x"
  [
    /(--?[A-Za-z0-9-]*(?:password|passwd|secret|token|api-?key|credentials?)\s+)(?!-)("[^"]*"|'[^']*'|[^\s,;&"']+)/gi,
    (_m, head) => `${head}[redacted]`,
  ],
  // a bare AWS secret access key: 40 characters of base64 with a slash or plus, both cases and a digit
  [
    /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=]))(?=[^\s]*[/+])(?=[^\s]*[a-z])(?=[^\s]*[A-Z])(?=[^\s]*\d)[A-Za-z0-9/+]{40}/g,
    '[redacted secret key]',
  ],
];

export function scrubString(s: string): string {
  let out = scrubUrlCredentials(s);
  for (const [re, to] of SECRET_VALUE_PATTERNS) out = out.replace(re, to as never);
  return out;
}

export function deepScrub(v: unknown): unknown {
  if (typeof v === 'string') return scrubString(v);
  if (Array.isArray(v)) return v.map(deepScrub);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = deepScrub(x);
    return out;
  }
  return v;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** HTTP headers of a probe: names stay, values go (an Authorization header is a credential). */
function scrubProbe(probe: unknown): void {
  if (!isObject(probe) || !isObject(probe.httpGet) || !Array.isArray(probe.httpGet.httpHeaders)) return;
  probe.httpGet.httpHeaders = probe.httpGet.httpHeaders.map((h) =>
    isObject(h) && typeof h.name === 'string' ? { name: h.name, value: '[redacted]' } : {},
  );
}

/**
 * Container env: names stay (they say what is configured), values and their sources go. Command lines lose the
 * values of secret-like flags (`--password x` too) and URL passwords; probe headers lose their values.
 */
function scrubContainers(list: unknown, keepEnv: readonly string[] = []): void {
  if (!Array.isArray(list)) return;
  for (const c of list) {
    if (!isObject(c)) continue;
    if (Array.isArray(c.env))
      c.env = c.env.map((e) =>
        isObject(e) && typeof e.name === 'string'
          ? keepEnv.includes(e.name) && typeof e.value === 'string'
            ? { name: e.name, value: e.value }
            : { name: e.name }
          : {},
      );
    else delete c.env;
    if (Array.isArray(c.args)) c.args = scrubArgs(c.args as string[]);
    if (Array.isArray(c.command)) c.command = scrubArgs(c.command as string[]);
    scrubProbe(c.livenessProbe);
    scrubProbe(c.readinessProbe);
    scrubProbe(c.startupProbe);
    if (isObject(c.lifecycle)) {
      scrubProbe(c.lifecycle.postStart);
      scrubProbe(c.lifecycle.preStop);
    }
  }
}

/** Values of secret-like keys (password, token, secret, *-key ...) in a string map: StorageClass parameters, tags. */
export function scrubSecretValues(map: unknown): void {
  if (!isObject(map)) return;
  for (const [k, v] of Object.entries(map)) if (typeof v === 'string' && isSecretKey(k)) map[k] = '[redacted]';
}

/** A tag or parameter key naming a secret, judged by its last path segment; CA's own tags are read for verdicts. */
function isSecretKey(key: string): boolean {
  if (key.startsWith('k8s.io/cluster-autoscaler/') || key.startsWith('kubernetes.io/')) return false;
  return isSecretName(key.slice(key.lastIndexOf('/') + 1));
}

/** ASG and launch-template tags: a tag whose key names a secret keeps its key, not its value. */
export function scrubTags(tags: unknown): void {
  if (!Array.isArray(tags)) return;
  for (const t of tags)
    if (isObject(t) && typeof t.Key === 'string' && typeof t.Value === 'string' && isSecretKey(t.Key))
      t.Value = '[redacted]';
}

function scrubPodSpec(spec: unknown, keepEnv: readonly string[] = []): void {
  if (!isObject(spec)) return;
  scrubContainers(spec.containers, keepEnv);
  scrubContainers(spec.initContainers);
  scrubContainers(spec.ephemeralContainers);
}

function scrubMetadata(meta: unknown): void {
  if (!isObject(meta)) return;
  delete meta.managedFields; // kubectl get -o json leaves them out too
  if (isObject(meta.annotations)) {
    for (const key of Object.keys(meta.annotations)) if (SECRET_ANNOTATION_RE.test(key)) delete meta.annotations[key];
  }
}

/** A copy of one Kubernetes object without secrets: env values, secret-bearing annotations, managedFields. */
export function scrubKubeObject(kind: DataKind, obj: KubeObject): KubeObject {
  const o = structuredClone(obj) as Record<string, unknown>;
  scrubMetadata(o.metadata);
  if (kind === 'pods') scrubPodSpec(o.spec);
  else if (isObject(o.spec) && isObject(o.spec.template)) {
    scrubMetadata(o.spec.template.metadata);
    // Karpenter's settings (FEATURE_GATES, VM_MEMORY_OVERHEAD_PERCENT ...) are env values and no secret: kept
    const keep = kind === 'deployments' && isKarpenterControllerDeployment(obj as Deployment) ? KARPENTER_SETTINGS_ENV : [];
    scrubPodSpec(o.spec.template.spec, keep);
  }
  // an EC2NodeClass's userData is a bootstrap script, like a launch template's UserData; tags may name secrets
  if (kind === 'ec2NodeClasses' && isObject(o.spec)) {
    delete o.spec.userData;
    scrubSecretValues(o.spec.tags);
  }
  if (kind === 'podTemplates' && isObject(o.template)) {
    scrubMetadata(o.template.metadata);
    scrubPodSpec(o.template.spec);
  }
  if (kind === 'configMaps') delete o.binaryData;
  if (kind === 'storageClasses') scrubSecretValues(o.parameters);
  return deepScrub(o) as KubeObject;
}
