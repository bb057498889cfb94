/**
 * kube-scheduler NodeAffinity Filter (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go) and the
 * node-selector matching it relies on (component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go).
 * Semantics kept: terms are ORed, expressions within a term ANDed; an empty term matches nothing; a term with an
 * invalid requirement (unknown operator, In without values, Gt with a non-integer, a key that is not a qualified name,
 * or any value that is not a valid label value) never matches while the other terms still count (labels.NewRequirement;
 * the API server accepts such values, so the pod is created and then fits no node); matchFields supports
 * metadata.name with In/NotIn and exactly one value.
 */
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod } from '../../model/k8s.js';
import type { ClusterView, FilterStatus, NodeInfo } from '../../model/scheduling.js';
import { isQualifiedName, isValidLabelValue } from './labels.js';
import { failure, success } from './status.js';

export const NODE_AFFINITY = 'NodeAffinity';
export const REASON_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

const INT64 = /^[+-]?[0-9]+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function parseInt64(s: string | undefined): bigint | undefined {
  if (s === undefined || !INT64.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

/** Why labels.NewRequirement rejects a node selector expression, or undefined when it is valid. */
export function expressionProblem(r: NodeSelectorRequirement): string | undefined {
  if (!expressionValid(r)) return 'invalid requirement';
  if (!isQualifiedName(r.key)) return `key "${r.key}" is not a valid label key`;
  // apimachinery labels/selector.go NewRequirement: every value must be a valid label value, whatever the operator
  const bad = (r.values ?? []).find((v) => !isValidLabelValue(v));
  return bad === undefined ? undefined : `value "${bad}" is not a valid label value`;
}

/** labels.NewRequirement validation for node selector expressions (operator and value count). */
function expressionValid(r: NodeSelectorRequirement): boolean {
  const n = r.values?.length ?? 0;
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      return n > 0;
    case 'Exists':
    case 'DoesNotExist':
      return n === 0;
    case 'Gt':
    case 'Lt':
      return n === 1 && parseInt64(r.values![0]) !== undefined;
    default:
      return false;
  }
}

function expressionMatches(r: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(value);
    case 'NotIn':
      return !has || !(r.values ?? []).includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const nodeValue = has ? parseInt64(value) : undefined;
      const wanted = parseInt64(r.values?.[0]);
      if (nodeValue === undefined || wanted === undefined) return false;
      return r.operator === 'Gt' ? nodeValue > wanted : nodeValue < wanted;
    }
    default:
      return false;
  }
}

function fieldValid(r: NodeSelectorRequirement): boolean {
  return (r.values?.length ?? 0) === 1 && (r.operator === 'In' || r.operator === 'NotIn');
}

function fieldMatches(r: NodeSelectorRequirement, fields: Record<string, string>): boolean {
  const value = fields[r.key] ?? '';
  return r.operator === 'In' ? value === r.values![0] : value !== r.values![0];
}

function isEmptyTerm(t: NodeSelectorTerm): boolean {
  return (t.matchExpressions?.length ?? 0) === 0 && (t.matchFields?.length ?? 0) === 0;
}

/** Whether one node selector term matches; with `why`, explains the first failing requirement. */
function termMatches(term: NodeSelectorTerm, node: Node, why?: string[]): boolean {
  if (isEmptyTerm(term)) {
    why?.push('empty term matches no node');
    return false;
  }
  const exprs = term.matchExpressions ?? [];
  const flds = term.matchFields ?? [];
  // component-helpers nodeaffinity.go newNodeSelectorTerm: one unparsable requirement makes the whole term match nothing
  for (const e of exprs) {
    const problem = expressionProblem(e);
    if (problem) {
      why?.push(
        problem === 'invalid requirement'
          ? `invalid requirement ${describeRequirement(e)}`
          : `invalid requirement ${describeRequirement(e)}: ${problem}, so the term matches no node`,
      );
      return false;
    }
  }
  const badField = flds.find((f) => !fieldValid(f));
  if (badField) {
    why?.push(`invalid requirement ${describeRequirement(badField)}`);
    return false;
  }
  const labels = node.metadata.labels ?? {};
  for (const e of exprs) {
    if (!expressionMatches(e, labels)) {
      const has = Object.hasOwn(labels, e.key);
      why?.push(
        `${describeRequirement(e)} (node has ${has ? `${e.key}=${labels[e.key]}` : `no label ${e.key}`})`,
      );
      return false;
    }
  }
  // extractNodeFields: a node without a name has no fields, so matchFields is not checked (PV node affinity path)
  const name = node.metadata.name;
  if (name) {
    const fields = { 'metadata.name': name };
    for (const f of flds) {
      if (!fieldMatches(f, fields)) {
        why?.push(`${describeRequirement(f)} (node is ${name})`);
        return false;
      }
    }
  }
  return true;
}

/** NodeSelectorTerms ORed (corev1 nodeaffinity MatchNodeSelectorTerms); no terms matches nothing. */
export function nodeSelectorTermsMatch(terms: NodeSelectorTerm[] | undefined, node: Node): boolean {
  for (const t of terms ?? []) if (termMatches(t, node)) return true;
  return false;
}

function nodeSelectorMatches(selector: Record<string, string> | undefined, node: Node): boolean {
  if (!selector) return true;
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(selector)) {
    if (!Object.hasOwn(labels, k) || labels[k] !== v) return false;
  }
  return true;
}

/** spec.nodeSelector AND required node affinity (nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)). */
export function podMatchesNodeSelectorAndAffinity(pod: Pod, node: Node): boolean {
  if (!nodeSelectorMatches(pod.spec.nodeSelector, node)) return false;
  const required = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required) return nodeSelectorTermsMatch(required.nodeSelectorTerms, node);
  return true;
}

export function describeRequirement(r: NodeSelectorRequirement): string {
  switch (r.operator) {
    case 'Exists':
      return `${r.key} Exists`;
    case 'DoesNotExist':
      return `${r.key} DoesNotExist`;
    default:
      return `${r.key} ${r.operator} [${(r.values ?? []).join(', ')}]`;
  }
}

/** Human explanation of why a node fails the pod's nodeSelector / required node affinity. */
export function explainNodeAffinityMismatch(pod: Pod, node: Node): string[] {
  const out: string[] = [];
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) {
    if (labels[k] !== v || !Object.hasOwn(labels, k)) {
      out.push(
        `nodeSelector ${k}=${v}, node has ${Object.hasOwn(labels, k) ? `${k}=${labels[k]}` : `no label ${k}`}`,
      );
    }
  }
  const required = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required && !nodeSelectorTermsMatch(required.nodeSelectorTerms, node)) {
    out.push(...explainTermsMismatch(required.nodeSelectorTerms, node, 'required node affinity'));
  }
  return out;
}

/** One line per term saying which requirement fails on `node` ("<what> term 1/2: zone In [a] (node has zone=b)"). */
export function explainTermsMismatch(
  terms: NodeSelectorTerm[] | undefined,
  node: Node,
  what: string,
): string[] {
  const list = terms ?? [];
  if (list.length === 0) return [`${what} has no nodeSelectorTerms`];
  return list.map((t, i) => {
    const why: string[] = [];
    termMatches(t, node, why);
    return `${what} term ${i + 1}/${list.length}: ${why.length > 0 ? why.join('; ') : 'matches'}`;
  });
}

export function nodeAffinity(pod: Pod, nodeInfo: NodeInfo, _view?: ClusterView): FilterStatus {
  if (podMatchesNodeSelectorAndAffinity(pod, nodeInfo.node)) return success(NODE_AFFINITY);
  return failure(
    NODE_AFFINITY,
    'UnschedulableAndUnresolvable',
    [REASON_NODE_AFFINITY],
    explainNodeAffinityMismatch(pod, nodeInfo.node),
  );
}
