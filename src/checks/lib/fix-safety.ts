// The fix rule: a printed fix (a command or snippet that changes what CA believes about a node group) must not be able
// to make things worse. CA plans with its template node; if a fix makes the template claim something the node that
// launches will not have, the pod stays Pending, CA scales the group again, and loops. So every fix that edits a
// node-group template passes these three tests, here and nowhere else (test/checks/fix-safety.test.ts runs every check
// on every example and holds each printed fix to them):
//
//  1. No node-template label tag for a label the cloud, the kubelet, EKS, Karpenter or a CSI driver sets on the node
//     itself (zone, region, instance type, arch, os, hostname, karpenter.sh/*, eks.amazonaws.com/* …). Such a tag makes
//     CA imagine a node the group cannot launch. The fix is a group where that label is true: name them, or say none is.
//  2. A template tag for a group whose template is a real node says that CA ignores it while the group has a Ready node
//     (and, after the group reaches zero, until CA restarts: it caches the last real node).
//  3. A GPU or other extended-resource tag only where the group's instance type really has the resource: CA's (or the
//     EC2) instance table gives it GPUs, the family is an accelerated one the table undercounts (g6f: fractional GPUs
//     reported as 0), or the group's own nodes advertise it.
import type { Finding } from '../../model/findings.js';
import type { NodeGroup } from '../../model/node-group.js';
import { parseQuantity } from '../../model/quantity.js';
import type { Analysis } from '../../simulate/analysis.js';

/** The tag prefix CA's AWS provider reads template labels, taints and resources from. */
const TEMPLATE_TAG = 'k8s.io/cluster-autoscaler/node-template/';

/** Label domains set on the node by someone else than its operator, with who sets them. */
const SYSTEM_LABEL_DOMAINS: Array<[test: (domain: string) => boolean, owner: string]> = [
  [(d) => d === 'topology.kubernetes.io' || d === 'failure-domain.beta.kubernetes.io', 'the cloud provider (from the instance)'],
  [(d) => d === 'node.kubernetes.io', 'the kubelet and the cloud provider (from the instance)'],
  [(d) => d === 'kubernetes.io' || d === 'beta.kubernetes.io', 'the kubelet (from the machine)'],
  // other *.kubernetes.io domains (k8s.io's reserved space) except the two the operator owns
  [
    (d) => d.endsWith('.kubernetes.io') && d !== 'node-role.kubernetes.io' && d !== 'node-restriction.kubernetes.io',
    'Kubernetes components',
  ],
  [(d) => d === 'karpenter.sh' || d.endsWith('.karpenter.sh'), 'Karpenter (on the nodes it launches)'],
  [(d) => d === 'karpenter.k8s.aws' || d.endsWith('.karpenter.k8s.aws'), "Karpenter's AWS provider (from the instance type)"],
  [(d) => d === 'eks.amazonaws.com' || d.endsWith('.eks.amazonaws.com'), 'EKS'],
  [(d) => d === 'topology.ebs.csi.aws.com', 'the EBS CSI driver (from the instance)'],
  [(d) => d === 'topology.k8s.aws' || d === 'vpc.amazonaws.com', 'the AWS cloud provider / VPC CNI (from the instance)'],
  [(d) => d === 'k8s.io' || d === 'cloud-provider-aws.k8s.io', 'the AWS cloud provider'],
];

/** Who sets this label on the node (not its operator), or undefined when an operator may set it (a tag may then say so). */
export function systemLabelOwner(key: string): string | undefined {
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  if (key === 'k8s.io/cloud-provider-aws') return 'the AWS cloud provider';
  if (domain === 'k8s.io') return undefined;
  return SYSTEM_LABEL_DOMAINS.find(([t]) => t(domain))?.[1];
}

/** Node groups whose nodes carry key=value: their template, a real node, or (zone, instance type) what the group launches. */
export function groupsWhereLabelTrue(a: Analysis, key: string, value: string): NodeGroup[] {
  return a.nodeGroups
    .filter((g) => g.discovered)
    .filter((g) => {
      if (a.template(g).node?.metadata.labels?.[key] === value) return true;
      if (g.nodes.some((n) => n.metadata.labels?.[key] === value)) return true;
      if (key === 'topology.kubernetes.io/zone' || key === 'failure-domain.beta.kubernetes.io/zone')
        return g.zones.includes(value);
      if (key === 'node.kubernetes.io/instance-type' || key === 'beta.kubernetes.io/instance-type')
        return a.provider.launchedInstanceTypes(g).includes(value);
      return false;
    })
    .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

/**
 * The sentence that replaces a template label tag for a label someone else sets (rule 1): who sets it, why a tag would
 * harm, and the groups where it is true (or that none is).
 */
export function systemLabelAdvice(a: Analysis, key: string, value: string): string {
  const owner = systemLabelOwner(key) ?? 'the node';
  const where = groupsWhereLabelTrue(a, key, value);
  const inTemplate = where.filter((g) => a.template(g).node?.metadata.labels?.[key] === value).map((g) => g.name);
  const elsewhere = where.filter((g) => !inTemplate.includes(g.name)).map((g) => g.name);
  const list = (xs: string[]) => (xs.length <= 5 ? xs.join(', ') : `${xs.slice(0, 5).join(', ')} and ${xs.length - 5} more`);
  const head = `${key} is set by ${owner}, not by a tag: a node-template tag would make CA imagine a node the group does not launch (the pod stays Pending, CA scales again).`;
  const parts = [head];
  if (inTemplate.length > 0) parts.push(`Node groups where ${key}=${value} is true: ${list(inTemplate)}.`);
  if (elsewhere.length > 0)
    // aws_manager.go buildNodeFromTemplate: one template per group, zone AvailabilityZones[0], the first instance type
    parts.push(
      `Node groups where ${key}=${value} is true of some nodes: ${list(elsewhere)}; CA's one template per group does not carry it (it takes the first zone and instance type), so give the pod a group of its own${key.endsWith('/zone') ? ` (an ASG in ${value} only)` : ''}.`,
    );
  if (where.length > 0) return parts.join(' ');
  if (key.startsWith('karpenter.sh/') || key.startsWith('karpenter.k8s.aws/'))
    return `${head} No CA node group has it: the pod asks for Karpenter's nodes (the karpenter findings say whether a NodePool can place it).`;
  return `${head} No node group has ${key}=${value}: add one whose nodes do${key.endsWith('/zone') ? ` (an ASG in ${value})` : key.endsWith('instance-type') ? ` (one launching ${value})` : ''}, or change the pod's selector.`;
}

/** The caveat of rule 2, for groups whose template is a real node (one sentence for all of them). */
export function realNodeTemplateCaveat(groups: Array<{ group: string; node: string }>, edit = 'the tag'): string {
  // processors/nodeinfosprovider/mixed_nodeinfos_processor.go:85-149@cluster-autoscaler-1.36.1: a Ready node of the
  // group is the template; with none, the cached copy of the last one; only then the provider's (tag-built) template
  if (groups.length === 1) {
    const [{ group, node }] = groups;
    return `CA builds ${group}'s template from its node ${node}, so it ignores ${edit} while the group has a Ready node, and after the group reaches zero until CA restarts (it keeps the last node's copy).`;
  }
  const names = groups.map((g) => `${g.group} (${g.node})`).join(', ');
  return `CA builds the templates of ${names} from their nodes, so it ignores ${edit} while a group has a Ready node, and after it reaches zero until CA restarts (it keeps the last node's copy).`;
}

/** Text that states rule 2's caveat (this module's own sentence, or the asg-audit checks' relevance wording). */
const REAL_NODE_CAVEAT =
  /ignores (the tag|the nodeTemplate label) while (the|a) group has a Ready node|only when no node of the group is Ready|can scale to zero, and after that CA builds this template/;

/** Resources every node has: a tag for them cannot invent a device. */
function isStandardResource(r: string): boolean {
  return ['cpu', 'memory', 'ephemeral-storage', 'pods'].includes(r) || r.startsWith('hugepages-');
}

/** Accelerated families (by vendor resource) whose devices CA's table may undercount (g6f: fractional GPUs as 0). */
const ACCELERATED_FAMILIES: Record<string, RegExp> = {
  // g4ad carries AMD GPUs: the device plugin there advertises amd.com/gpu, never nvidia.com/gpu
  'nvidia.com/gpu': /^(?!g4ad$)(g\d|gr\d|p\d)[a-z]*$/,
  'amd.com/gpu': /^g4ad$/,
  'habana.ai/gaudi': /^dl\d[a-z]*$/,
  'aws.amazon.com/neuron': /^(inf|trn)\d[a-z]*$/,
  'aws.amazon.com/neuroncore': /^(inf|trn)\d[a-z]*$/,
  'aws.amazon.com/neurondevice': /^(inf|trn)\d[a-z]*$/,
};

/**
 * Whether a template tag giving `group` the extended resource `resource` is true of its nodes (rule 3), with the
 * evidence; standard resources always pass.
 */
export function resourceEvidence(
  a: Analysis,
  group: NodeGroup,
  resource: string,
): { ok: true; why: string } | { ok: false; why: string } {
  if (isStandardResource(resource)) return { ok: true, why: 'every node has it' };
  const withIt = group.nodes.find((n) => parseQuantity(n.status?.capacity?.[resource] ?? 0) > 0);
  if (withIt) return { ok: true, why: `node ${withIt.metadata.name} advertises it` };
  const t = a.template(group);
  const type = t.scratch?.instanceType ?? t.instanceType;
  if (!type) return { ok: false, why: `casdoctor does not know ${group.name}'s instance type` };
  const info = a.instanceTypes.lookup(type);
  const family = type.split('.')[0];
  const vendorFamily = ACCELERATED_FAMILIES[resource];
  if (vendorFamily?.test(family)) return { ok: true, why: `${type} is an accelerated instance type` };
  if (resource === 'nvidia.com/gpu' && info && info.gpu > 0 && !/^(g4ad|dl\d|inf\d|trn\d)/.test(family))
    return { ok: true, why: `${type} has ${info.gpu} GPU(s)` };
  return {
    ok: false,
    why: vendorFamily
      ? `${type} has no ${resource} (${info ? `${info.gpu} GPUs in the instance table` : 'not in the instance table'})`
      : `no node of ${group.name} advertises ${resource}`,
  };
}

/** A node-template tag a remediation would set: the group, the kind of template entry, its key and value. */
export interface TemplateTagEdit {
  group: string;
  kind: 'label' | 'taint' | 'resources';
  key: string;
  value: string;
}

/** The node-template tags of the `aws autoscaling create-or-update-tags` commands in a text (unquoted or single-quoted). */
export function templateTagEdits(text: string): TemplateTagEdit[] {
  const out: TemplateTagEdit[] = [];
  const re = /ResourceId=([^,\s']+),ResourceType=auto-scaling-group,Key=k8s\.io\/cluster-autoscaler\/node-template\/(label|taint|resources)\/([^,\s']+),Value=([^,\s']*)/g;
  for (let m = re.exec(text); m; m = re.exec(text))
    out.push({ group: m[1], kind: m[2] as TemplateTagEdit['kind'], key: m[3], value: m[4] });
  // externalgrpc: the nodeTemplate edit lines of a remedy (providers/externalgrpc/wording.ts templateEdit), e.g.
  //   #   group 'web pool': nodeTemplate.labels: "topology.kubernetes.io/zone": "eu-west-1a"
  const grpc = /^[ \t]*#\s+group ('(?:[^']|'\\'')*'|\S+): nodeTemplate\.(labels|capacity): ("(?:[^"\\]|\\.)*"): ("(?:[^"\\]|\\.)*")$/gm;
  for (let m = grpc.exec(text); m; m = grpc.exec(text)) {
    const group = m[1].startsWith("'") ? m[1].slice(1, -1).replace(/'\\''/g, "'") : m[1];
    const kind = m[2] === 'labels' ? 'label' : 'resources';
    try {
      out.push({ group, kind, key: JSON.parse(m[3]) as string, value: JSON.parse(m[4]) as string });
    } catch {
      // not a line the provider's wording writes: nothing this rule reads
    }
  }
  return out;
}

/** One way a printed fix breaks the rule: which rule, the edit, and the reason in a sentence. */
export interface FixBreach {
  rule: 1 | 2 | 3;
  edit: TemplateTagEdit;
  why: string;
}

/** How the finding's printed fix breaks the rule, edit by edit (empty when it passes). */
export function fixBreaches(a: Analysis, f: Finding): FixBreach[] {
  const text = f.remediation ?? '';
  const out: FixBreach[] = [];
  for (const e of templateTagEdits(text)) {
    const g = a.nodeGroups.find((x) => x.name === e.group);
    const owner = e.kind === 'label' ? systemLabelOwner(e.key) : undefined;
    if (owner) out.push({ rule: 1, edit: e, why: `${e.key} is set by ${owner}` });
    if (!g) continue;
    if (e.kind === 'resources' && Number.parseFloat(e.value) > 0) {
      const ev = resourceEvidence(a, g, e.key);
      if (!ev.ok) out.push({ rule: 3, edit: e, why: ev.why });
    }
    if (a.template(g).source === 'node' && !REAL_NODE_CAVEAT.test(`${f.message}\n${text}`))
      out.push({ rule: 2, edit: e, why: "the group's template is a real node and the fix does not say CA ignores the tag" });
  }
  return out;
}

/** How the finding's printed fix breaks the rule (empty when it passes). */
export function fixViolations(a: Analysis, f: Finding): string[] {
  return fixBreaches(a, f).map((b) => `${TEMPLATE_TAG}${b.edit.kind}/${b.edit.key}=${b.edit.value} on ${b.edit.group}: ${b.why}`);
}

/**
 * The rule enforced (the check engine and preflight call it on every finding they collect, so no check can bypass it):
 * a fix that breaks rule 1 or 3 is withheld and replaced by the rule's explanation, with what to do instead; one that
 * only lacks rule 2's caveat keeps its commands and gains the caveat. A finding whose fix passes comes back unchanged.
 */
export function applyFixRule(a: Analysis, f: Finding): Finding {
  const breaches = fixBreaches(a, f);
  if (breaches.length === 0) return f;
  const harmful = breaches.filter((b) => b.rule !== 2);
  if (harmful.length === 0) {
    const groups = [...new Set(breaches.map((b) => b.edit.group))].flatMap((name) => {
      const g = a.nodeGroups.find((x) => x.name === name);
      const node = g ? a.template(g).fromNode : undefined;
      return node ? [{ group: name, node }] : [];
    });
    return groups.length === 0 ? f : { ...f, remediation: `${f.remediation ?? ''}\n${realNodeTemplateCaveat(groups, a.provider.templateLabelEdit)}` };
  }
  const seen = new Set<string>();
  const instead: string[] = [];
  for (const b of harmful) {
    const key = `${b.rule} ${b.edit.kind} ${b.edit.key}=${b.edit.value}${b.rule === 3 ? ` ${b.edit.group}` : ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    instead.push(
      b.rule === 1
        ? systemLabelAdvice(a, b.edit.key, b.edit.value)
        : `A ${b.edit.key} template entry on ${b.edit.group} would make CA launch its nodes for pods they cannot hold (${b.why}), and scale it again while they stay Pending: give the pod a group whose instance type has ${b.edit.key}.`,
    );
  }
  return {
    ...f,
    remediation: [
      `casdoctor withheld the fix this check printed: it edits a node-group template in a way that could make things worse (${harmful.map((b) => `${b.edit.kind} ${b.edit.key}=${b.edit.value} on ${b.edit.group}: ${b.why}`).join('; ')}).`,
      ...instead,
    ].join('\n'),
  };
}
