// `casdoctor snapshot`: writes a RawInputs as the standard dumps `--from` reads back (one `kubectl get -A -o json` List
// per kind, one `aws ... --output json` document per output), after removing everything secret, optionally redacted.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InputError } from '../model/errors.js';
import type { CaLogText, CaProxyText } from '../model/ca-record.js';
import type { KubeObject } from '../model/k8s.js';
import { shellCommand } from '../model/shell.js';
import type { DataKind, RawInputs } from '../model/snapshot.js';
import { isStackOverflow } from './input-files.js';
import type { Redactor } from './redact.js';
import { KARPENTER_CRD_HOW_TO_PROVIDE } from '../model/karpenter-crds.js';
import type { ConfigMap } from '../model/k8s.js';
import { buildCaConfig, findCaDeployment } from '../simulate/ca-config.js';
import { providerById } from '../providers/index.js';
import { deepScrub, isObject, scrubKubeObject, scrubSecretValues, scrubString, scrubTags } from './snapshot-scrub.js';

interface KubeFileSpec {
  kind: DataKind;
  file: string;
  itemKind: string;
  apiVersion: string;
  command: string;
}

/** One file per Kubernetes kind, named like the bundled demo dump. */
export const KUBE_FILES: readonly KubeFileSpec[] = [
  { kind: 'pods', file: 'pods.json', itemKind: 'Pod', apiVersion: 'v1', command: 'kubectl get pods -A -o json' },
  { kind: 'nodes', file: 'nodes.json', itemKind: 'Node', apiVersion: 'v1', command: 'kubectl get nodes -o json' },
  { kind: 'events', file: 'events.json', itemKind: 'Event', apiVersion: 'v1', command: 'kubectl get events -A -o json' },
  {
    kind: 'pdbs',
    file: 'pdbs.json',
    itemKind: 'PodDisruptionBudget',
    apiVersion: 'policy/v1',
    command: 'kubectl get pdb -A -o json',
  },
  {
    kind: 'pvcs',
    file: 'pvcs.json',
    itemKind: 'PersistentVolumeClaim',
    apiVersion: 'v1',
    command: 'kubectl get pvc -A -o json',
  },
  { kind: 'pvs', file: 'pvs.json', itemKind: 'PersistentVolume', apiVersion: 'v1', command: 'kubectl get pv -o json' },
  {
    kind: 'storageClasses',
    file: 'storageclasses.json',
    itemKind: 'StorageClass',
    apiVersion: 'storage.k8s.io/v1',
    command: 'kubectl get storageclass -o json',
  },
  {
    kind: 'replicaSets',
    file: 'replicasets.json',
    itemKind: 'ReplicaSet',
    apiVersion: 'apps/v1',
    command: 'kubectl get replicasets -A -o json',
  },
  {
    kind: 'replicationControllers',
    file: 'replicationcontrollers.json',
    itemKind: 'ReplicationController',
    apiVersion: 'v1',
    command: 'kubectl get replicationcontrollers -A -o json',
  },
  {
    kind: 'deployments',
    file: 'deployments.json',
    itemKind: 'Deployment',
    apiVersion: 'apps/v1',
    command: 'kubectl get deployments -A -o json',
  },
  {
    kind: 'statefulSets',
    file: 'statefulsets.json',
    itemKind: 'StatefulSet',
    apiVersion: 'apps/v1',
    command: 'kubectl get statefulsets -A -o json',
  },
  {
    kind: 'daemonSets',
    file: 'daemonsets.json',
    itemKind: 'DaemonSet',
    apiVersion: 'apps/v1',
    command: 'kubectl get daemonsets -A -o json',
  },
  { kind: 'jobs', file: 'jobs.json', itemKind: 'Job', apiVersion: 'batch/v1', command: 'kubectl get jobs -A -o json' },
  {
    kind: 'priorityClasses',
    file: 'priorityclasses.json',
    itemKind: 'PriorityClass',
    apiVersion: 'scheduling.k8s.io/v1',
    command: 'kubectl get priorityclass -o json',
  },
  {
    kind: 'serviceAccounts',
    file: 'serviceaccounts.json',
    itemKind: 'ServiceAccount',
    apiVersion: 'v1',
    command: 'kubectl get serviceaccounts -A -o json',
  },
  {
    kind: 'configMaps',
    file: 'configmaps.json',
    itemKind: 'ConfigMap',
    apiVersion: 'v1',
    command:
      'kubectl get configmap -A --field-selector metadata.name=cluster-autoscaler-status -o json (the CA status and priority-expander ConfigMaps only)',
  },
  {
    kind: 'provisioningRequests',
    file: 'provisioningrequests.json',
    itemKind: 'ProvisioningRequest',
    apiVersion: 'autoscaling.x-k8s.io/v1',
    command: 'kubectl get provisioningrequests.autoscaling.x-k8s.io -A -o json',
  },
  {
    kind: 'podTemplates',
    file: 'podtemplates.json',
    itemKind: 'PodTemplate',
    apiVersion: 'v1',
    command: 'kubectl get podtemplates -A -o json',
  },
  {
    kind: 'capacityBuffers',
    file: 'capacitybuffers.json',
    itemKind: 'CapacityBuffer',
    apiVersion: 'autoscaling.x-k8s.io/v1beta1',
    command: 'kubectl get capacitybuffers.autoscaling.x-k8s.io -A -o json',
  },
  // Karpenter's resources (cluster-scoped)
  {
    kind: 'nodePools',
    file: 'nodepools.json',
    itemKind: 'NodePool',
    apiVersion: 'karpenter.sh/v1',
    command: KARPENTER_CRD_HOW_TO_PROVIDE.nodePools.replace(/ > .*$/, ''),
  },
  {
    kind: 'ec2NodeClasses',
    file: 'ec2nodeclasses.json',
    itemKind: 'EC2NodeClass',
    apiVersion: 'karpenter.k8s.aws/v1',
    command: `${KARPENTER_CRD_HOW_TO_PROVIDE.ec2NodeClasses.replace(/ > .*$/, '')} (spec.userData removed)`,
  },
  {
    kind: 'nodeClaims',
    file: 'nodeclaims.json',
    itemKind: 'NodeClaim',
    apiVersion: 'karpenter.sh/v1',
    command: KARPENTER_CRD_HOW_TO_PROVIDE.nodeClaims.replace(/ > .*$/, ''),
  },
];

/** CA's priority-expander ConfigMap (CA: expander/priority/priority.go), kept beside the status ConfigMap. */
const PRIORITY_EXPANDER_CONFIGMAP = 'cluster-autoscaler-priority-expander';
const CA_LOG_PREFIX = 'ca-log-';
const CA_METRICS_FILE = 'ca-metrics';
const CA_SNAPSHOTZ_FILE = 'ca-snapshotz';

interface AwsFileSpec {
  kind: DataKind;
  file: string;
  key: string;
  command: string;
}

export const AWS_FILES: readonly AwsFileSpec[] = [
  {
    kind: 'autoScalingGroups',
    file: 'asgs.json',
    key: 'AutoScalingGroups',
    command: 'aws autoscaling describe-auto-scaling-groups --output json',
  },
  {
    kind: 'launchTemplateVersions',
    file: 'launch-template-versions.json',
    key: 'LaunchTemplateVersions',
    command: 'aws ec2 describe-launch-template-versions --output json (UserData removed)',
  },
  {
    kind: 'launchConfigurations',
    file: 'launch-configurations.json',
    key: 'LaunchConfigurations',
    command: 'aws autoscaling describe-launch-configurations --output json (UserData removed)',
  },
  {
    kind: 'instanceTypes',
    file: 'instance-types.json',
    key: 'InstanceTypes',
    command: 'aws ec2 describe-instance-types --output json',
  },
  {
    kind: 'instanceTypesFromRequirements',
    file: 'instance-types-from-requirements.json',
    key: 'InstanceTypes',
    command: 'aws ec2 get-instance-types-from-instance-requirements --output json',
  },
  { kind: 'images', file: 'images.json', key: 'Images', command: 'aws ec2 describe-images --output json' },
  {
    kind: 'instanceTypeOfferings',
    file: 'instance-type-offerings.json',
    key: 'InstanceTypeOfferings',
    command: 'aws ec2 describe-instance-type-offerings --location-type availability-zone --output json',
  },
  {
    kind: 'scalingActivities',
    file: 'scaling-activities.json',
    key: 'Activities',
    command: 'aws autoscaling describe-scaling-activities --output json',
  },
  {
    kind: 'iamEvaluationResults',
    file: 'iam-evaluation-results.json',
    key: 'EvaluationResults',
    command: 'aws iam simulate-principal-policy --output json',
  },
];

export const SNAPSHOT_README = 'README.md';
const EKS_PREFIX = 'eks-nodegroup-';

export interface SnapshotFile {
  name: string;
  content: string;
  /** Objects in the file. */
  count: number;
  /** The command whose output the file reproduces. */
  command: string;
  /** The file's modification time: a CA log's lines have no year, and the reader dates them by it. */
  mtime?: Date;
}

export interface SnapshotBuildOptions {
  /** The CA status ConfigMaps to keep (namespace/name); every other ConfigMap is dropped. */
  statusConfigMaps: Array<{ namespace: string; name: string }>;
  /** Pseudonymises account ids, ARNs, IPs, host names and instance ids (--redact). */
  redactor?: Redactor;
  /** For the README: when and how the snapshot was taken. */
  takenAt: Date;
  source: string;
  version: string;
}

/**
 * The snapshot's content: every kind the source provided, without Secrets, ConfigMaps other than CA's status, env
 * values, UserData, tokens or credentials; redacted when asked. Pure: nothing is written here.
 */
export function buildSnapshotFiles(raw: RawInputs, opts: SnapshotBuildOptions): SnapshotFile[] {
  try {
    return buildFiles(raw, opts);
  } catch (e) {
    // scrubbing and redaction walk every value; hostile nesting (JSON.parse takes any depth) overflows the stack
    if (isStackOverflow(e)) throw new InputError('an input object is too deep: values nested deeper than casdoctor writes');
    throw e;
  }
}

/**
 * The ConfigMaps CA's cloud provider reads (externalgrpc: its own and CA's --cloud-config), keyed "namespace/name",
 * each with what the provider lets a snapshot keep of it (providers/<id>: configMapRefs, keepConfigMap).
 */
function providerKeep(raw: RawInputs): Map<string, (cm: ConfigMap) => ConfigMap> {
  const out = new Map<string, (cm: ConfigMap) => ConfigMap>();
  const found = findCaDeployment(raw.deployments);
  if (!found) return out;
  const ca = buildCaConfig({ deployment: found.deployment });
  const provider = providerById(ca.flags.cloudProvider.value);
  const keep = provider?.keepConfigMap?.bind(provider);
  if (!keep) return out;
  for (const ref of provider?.configMapRefs?.(raw.deployments, ca) ?? []) out.set(`${ref.namespace}/${ref.name}`, (cm) => keep(ref, cm));
  return out;
}

function buildFiles(raw: RawInputs, opts: SnapshotBuildOptions): SnapshotFile[] {
  const keep = new Set(opts.statusConfigMaps.map((c) => `${c.namespace}/${c.name}`));
  const grpcKeep = providerKeep(raw);
  const clean: Partial<RawInputs> = {};
  for (const spec of KUBE_FILES) {
    const items = ((raw[spec.kind] as KubeObject[] | undefined) ?? []).filter((o) => {
      if (!isObject(o) || o.kind === 'Secret') return false;
      if (spec.kind !== 'configMaps') return true;
      // CA's priority-expander ConfigMap is read for the expander's choice (live, only in CA's --namespace)
      const id = `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
      return keep.has(id) || o.metadata?.name === PRIORITY_EXPANDER_CONFIGMAP || grpcKeep.has(id);
    });
    (clean[spec.kind] as unknown[]) = items.map((o) => {
      const trim = spec.kind === 'configMaps' ? grpcKeep.get(`${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`) : undefined;
      return scrubKubeObject(spec.kind, trim ? trim(o as ConfigMap) : o);
    });
  }
  for (const spec of AWS_FILES) {
    const items = structuredClone((raw[spec.kind] as unknown[] | undefined) ?? []).filter(isObject);
    for (const item of items) {
      delete item.UserData; // launch configurations
      scrubTags(item.Tags);
      if (isObject(item.LaunchTemplateData)) {
        delete item.LaunchTemplateData.UserData;
        if (Array.isArray(item.LaunchTemplateData.TagSpecifications))
          for (const ts of item.LaunchTemplateData.TagSpecifications) if (isObject(ts)) scrubTags(ts.Tags);
      }
    }
    (clean[spec.kind] as unknown[]) = items.map(deepScrub);
  }
  const nodegroups = structuredClone(raw.eksNodegroups).filter(isObject);
  for (const ng of nodegroups) scrubSecretValues(ng.tags);
  clean.eksNodegroups = nodegroups.map(deepScrub) as RawInputs['eksNodegroups'];
  clean.gaps = raw.gaps.map((g) => deepScrub(g)) as RawInputs['gaps'];
  clean.warnings = raw.warnings.map(scrubString);

  const r = opts.redactor;
  if (r) r.learn(clean);
  const red = <T>(v: T): T => (r ? r.redactValue(v) : v);

  const files: SnapshotFile[] = [];
  for (const spec of KUBE_FILES) {
    const items = (clean[spec.kind] as KubeObject[]).map((o) => red(o));
    if (items.length === 0 && !raw.provided.has(spec.kind)) continue;
    for (const o of items) {
      o.kind ??= spec.itemKind;
      o.apiVersion ??= spec.apiVersion;
    }
    // An empty List says nothing about its kind; the typed PodList etc. (what the API server answers) does.
    const doc =
      items.length > 0
        ? { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }
        : { apiVersion: spec.apiVersion, items: [], kind: `${spec.itemKind}List`, metadata: { resourceVersion: '' } };
    files.push({ name: spec.file, content: kubectlJson(doc), count: items.length, command: spec.command });
  }
  for (const spec of AWS_FILES) {
    const items = red(clean[spec.kind] as unknown[]);
    if (items.length === 0 && !raw.provided.has(spec.kind)) continue;
    // An empty InstanceTypes array would read back as describe-instance-types; leave requirement results out instead.
    if (items.length === 0 && spec.kind === 'instanceTypesFromRequirements') continue;
    files.push({ name: spec.file, content: awsJson({ [spec.key]: items }), count: items.length, command: spec.command });
  }
  const seen = new Set<string>();
  for (const ng of clean.eksNodegroups ?? []) {
    const n = red(ng);
    let name = `${EKS_PREFIX}${safeFileName(`${n.clusterName ?? 'cluster'}-${n.nodegroupName ?? 'nodegroup'}`)}`;
    for (let i = 2; seen.has(name); i++) name = `${EKS_PREFIX}${safeFileName(`${n.clusterName}-${n.nodegroupName}`)}-${i}`;
    seen.add(name);
    files.push({
      name: `${name}.json`,
      content: awsJson({ nodegroup: n }),
      count: 1,
      command: 'aws eks describe-nodegroup --output json',
    });
  }
  files.push(...caRecordFiles(raw, opts, red));
  files.push({
    name: SNAPSHOT_README,
    content: readme(files, clean, opts, red),
    count: 0,
    command: '',
  });
  return files;
}

/**
 * CA's own record as `kubectl logs` and `kubectl get --raw` print it: one log file per container (and its previous
 * instance), /metrics as text, /snapshotz as JSON; every line scrubbed like the rest, redacted when asked. The offline
 * loader recognises each by content.
 */
function caRecordFiles(raw: RawInputs, opts: SnapshotBuildOptions, red: <T>(v: T) => T): SnapshotFile[] {
  const files: SnapshotFile[] = [];
  const taken = new Set<string>();
  const unique = (base: string, ext: string) => {
    let name = `${base}${ext}`;
    for (let i = 2; taken.has(name); i++) name = `${base}-${i}${ext}`;
    taken.add(name);
    return name;
  };
  for (const t of raw.caLogTexts ?? []) {
    const text = red(scrubString(t.text));
    const who = [t.pod, t.container].filter((x) => x !== '').join('-') || 'cluster-autoscaler';
    files.push({
      name: unique(`${CA_LOG_PREFIX}${safeFileName(who)}${t.previous ? '-previous' : ''}`, '.log'),
      content: text,
      count: lineCount(text),
      command: caLogCommand(t),
      // the reader dates year-less klog lines by the file's time: when the log was read
      mtime: opts.takenAt,
    });
  }
  // Karpenter's log, as read (JSON lines; the loader recognises it by content)
  for (const t of raw.karpenterLogTexts ?? []) {
    const text = red(scrubString(t.text));
    files.push({
      name: unique(`karpenter-${safeFileName(t.name.replace(/\.log$/, ''))}`, '.log'),
      content: text,
      count: lineCount(text),
      command: `kubectl logs (Karpenter's controller${t.truncated ? ", cut at casdoctor's byte cap" : ''})`,
    });
  }
  // spot prices, as `aws ec2 describe-spot-price-history --output json` prints them
  if (raw.spotPriceHistory?.length)
    files.push({
      name: unique('spot-prices', '.json'),
      content: awsJson({ SpotPriceHistory: red(raw.spotPriceHistory) }),
      count: raw.spotPriceHistory.length,
      command: 'aws ec2 describe-spot-price-history --product-descriptions Linux/UNIX --start-time <now> --output json',
    });
  for (const t of raw.caProxyTexts ?? []) {
    const metrics = t.path === '/metrics';
    const content = metrics ? red(scrubString(t.text)) : scrubSnapshotz(t.text, red);
    files.push({
      name: unique(metrics ? CA_METRICS_FILE : CA_SNAPSHOTZ_FILE, metrics ? '.txt' : '.json'),
      content,
      count: metrics ? lineCount(content) : snapshotzNodeCount(content),
      command: caProxyCommand(t),
    });
  }
  return files;
}

function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function caLogCommand(t: CaLogText): string {
  if (t.pod === '') return 'kubectl logs (a Cluster Autoscaler log given with --from)';
  const argv = ['kubectl', 'logs', '-n', t.namespace, t.pod, '-c', t.container];
  if (t.sinceSeconds > 0) argv.push(`--since=${t.sinceSeconds}s`);
  if (t.previous) argv.push('--previous');
  return `${shellCommand(argv)}${t.truncated ? ' (cut at casdoctor\'s byte cap)' : ''}`;
}

function caProxyCommand(t: CaProxyText): string {
  if (t.pod === '') return `kubectl get --raw (CA's ${t.path} given with --from)`;
  return shellCommand(['kubectl', 'get', '--raw', `/api/v1/namespaces/${t.namespace}/pods/${t.pod}:${t.port}/proxy${t.path}`]);
}

/**
 * CA's /snapshotz (CA: debuggingsnapshot/debugging_snapshot.go): its nodes and pods are Kubernetes objects and are
 * scrubbed as those are; Go's field order is kept. Text that is not JSON is scrubbed as text.
 */
function scrubSnapshotz(text: string, red: <T>(v: T) => T): string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return red(scrubString(text));
  }
  if (!isObject(doc)) return red(scrubString(text));
  const nodeInfo = (v: unknown) => {
    if (!isObject(v)) return v;
    const out: Record<string, unknown> = { ...v };
    if (isObject(v.Node)) out.Node = scrubKubeObject('nodes', v.Node as KubeObject);
    if (Array.isArray(v.Pods)) out.Pods = v.Pods.map((p) => (isObject(p) ? scrubKubeObject('pods', p as KubeObject) : p));
    return out;
  };
  const out: Record<string, unknown> = { ...doc };
  if (Array.isArray(doc.NodeList)) out.NodeList = doc.NodeList.map(nodeInfo);
  if (Array.isArray(doc.UnscheduledPodsCanBeScheduled))
    out.UnscheduledPodsCanBeScheduled = doc.UnscheduledPodsCanBeScheduled.map((p) =>
      isObject(p) ? scrubKubeObject('pods', p as KubeObject) : p,
    );
  if (isObject(doc.TemplateNodes)) {
    const templates: Record<string, unknown> = {};
    for (const [group, v] of Object.entries(doc.TemplateNodes)) templates[group] = nodeInfo(v);
    out.TemplateNodes = templates;
  }
  return `${JSON.stringify(red(deepScrub(out)))}\n`;
}

function snapshotzNodeCount(content: string): number {
  try {
    const d = JSON.parse(content) as { NodeList?: unknown };
    return Array.isArray(d.NodeList) ? d.NodeList.length : 0;
  } catch {
    return 0;
  }
}

function safeFileName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120);
}

/** kubectl prints Go maps: keys sorted at every level, 4-space indent. */
function kubectlJson(doc: unknown): string {
  return `${JSON.stringify(sortKeysDeep(doc), null, 4)}\n`;
}

/** aws-cli v2 keeps the API member order, 4-space indent. */
function awsJson(doc: unknown): string {
  return `${JSON.stringify(doc, null, 4)}\n`;
}

function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeysDeep(v[k]);
    return out;
  }
  return v;
}

function readme(
  files: SnapshotFile[],
  clean: Partial<RawInputs>,
  opts: SnapshotBuildOptions,
  red: <T>(v: T) => T,
): string {
  const lines = [
    '# casdoctor snapshot',
    '',
    `Taken ${opts.takenAt.toISOString()} by casdoctor ${opts.version} from ${red(opts.source)}.`,
    'Read it back with `casdoctor <command> --from <this directory> --now <the time above>`.',
    '',
    'Left out on purpose: Secrets, every ConfigMap but the Cluster Autoscaler status and priority-expander ConfigMaps,',
    'container environment values (names are kept; the Karpenter controller keeps its settings), launch template and',
    'launch configuration UserData and EC2NodeClass userData, managedFields,',
    'annotations that carry manifests or credentials (e.g. kubectl.kubernetes.io/last-applied-configuration), values of',
    'secret-like command-line flags (--password x), probe HTTP header values, secret-like StorageClass parameters and tag',
    'values, URL passwords, and anything that looks like a token, key or password (AWS, GitHub and Slack tokens included).',
    'The same scrubbing applies to every line of the Cluster Autoscaler\'s log (ca-log-*.log), its /metrics',
    '(ca-metrics.txt) and its /snapshotz (ca-snapshotz.json, whose nodes and pods are scrubbed as Kubernetes objects).',
    '',
  ];
  if (opts.redactor) {
    lines.push(
      'Redacted: AWS account ids, ARNs, IP addresses, node host names, host names in URLs and private image registries,',
      'EKS endpoint and OIDC issuer ids, EC2 instance, subnet, VPC, security-group, AMI, launch-template and volume ids,',
      'object UIDs and node systemUUID/machineID/bootID are replaced by stable pseudonyms (HMAC-SHA256 with a salt), the',
      'same everywhere they appear. Kept: names of namespaces, workloads, pods, node groups, labels and tags.',
      '',
    );
  }
  lines.push('| file | objects | output of |', '|---|---|---|');
  for (const f of files) lines.push(`| ${f.name} | ${f.count} | \`${f.command}\` |`);
  const gaps = clean.gaps ?? [];
  lines.push('');
  if (gaps.length) {
    lines.push('Not gathered (checks that need these are skipped when the snapshot is read back):', '');
    for (const g of gaps) lines.push(`- ${red(g.detail)}`);
  } else lines.push('Everything casdoctor reads was gathered.');
  return `${lines.join('\n')}\n`;
}

/** Names of files a snapshot may write: a refreshed snapshot (--force) removes the ones it does not write again. */
function isSnapshotFileName(name: string): boolean {
  return (
    name === SNAPSHOT_README ||
    KUBE_FILES.some((f) => f.file === name) ||
    AWS_FILES.some((f) => f.file === name) ||
    (name.startsWith(EKS_PREFIX) && name.endsWith('.json')) ||
    (name.startsWith(CA_LOG_PREFIX) && name.endsWith('.log')) ||
    /^ca-(?:metrics(?:-\d+)?\.txt|snapshotz(?:-\d+)?\.json)$/.test(name)
  );
}

export class SnapshotDirError extends Error {
  override name = 'SnapshotDirError';
}

/** Throws SnapshotDirError when dir holds files and force is not set (checked before gathering, again when writing). */
export async function checkSnapshotDir(dir: string, force?: boolean): Promise<void> {
  let existing: string[];
  try {
    existing = await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (existing.length > 0 && !force) {
    throw new SnapshotDirError(`${dir} is not empty (${existing.slice(0, 3).join(', ')}${existing.length > 3 ? ', ...' : ''})`);
  }
}

/**
 * Writes the files into dir (created when missing). A non-empty dir is refused unless force, because `--from` reads
 * every file in it: a stale dump left beside the new one would be read too. With force, earlier snapshot files that
 * this snapshot does not write are removed; other files are left alone and returned.
 */
export async function writeSnapshot(
  dir: string,
  files: SnapshotFile[],
  opts: { force?: boolean } = {},
): Promise<{ foreign: string[] }> {
  await mkdir(dir, { recursive: true });
  await checkSnapshotDir(dir, opts.force);
  const existing = await readdir(dir);
  const writing = new Set(files.map((f) => f.name));
  const foreign: string[] = [];
  for (const name of existing) {
    if (writing.has(name)) continue;
    if (isSnapshotFileName(name)) await rm(join(dir, name), { force: true });
    else foreign.push(name);
  }
  for (const f of files) await replaceFile(join(dir, f.name), f.content, 0o644, f.mtime);
  return { foreign };
}

/**
 * Writes a file by creating a new one beside it and renaming it over the name: a symlink (or hard link) planted at the
 * name is replaced, never written through, so --force cannot overwrite a file elsewhere. A directory there is refused.
 */
export async function replaceFile(path: string, content: string, mode: number, mtime?: Date): Promise<void> {
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (st?.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx': O_CREAT|O_EXCL, which fails on an existing name, a symlink included
  await writeFile(tmp, content, { mode, flag: 'wx' });
  try {
    if (mtime) await utimes(tmp, mtime, mtime);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
