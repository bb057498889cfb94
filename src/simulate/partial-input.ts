// Inputs that are not a whole cluster: the pods of one namespace, one pod, workload manifests. Read as a cluster they
// give confident wrong answers (a node that "fits" is full of the pods left out; CA "has no pod"), so they are
// recognised here and the answers that depend on the missing part are "not evaluated", with what to add. Pure.
import type { RawInputs } from '../model/snapshot.js';

export interface PartialPods {
  /** Why the input's pods are not all of the cluster's, and what to add. */
  detail: string;
  /** Namespaces whose workloads run pods while the input holds none of them (empty when unknown). */
  missingNamespaces: string[];
  /** The pods came one by one (`kubectl get pod NAME -o json`), so any namespace may be missing pods. */
  oneByOne: boolean;
  /**
   * The input is pods and nothing else (`kubectl get pods -n web -o json` alone): the namespaces it holds pods of; any
   * other namespace may have pods the input does not show.
   */
  podsOnly?: string[];
}

/** Lists of the cluster around its pods: an input with none of them is pods alone. */
const CLUSTER_KINDS = ['nodes', 'deployments', 'replicaSets', 'statefulSets', 'daemonSets', 'jobs', 'configMaps', 'events', 'nodePools', 'autoScalingGroups'] as const;

const ALL_PODS = 'kubectl get pods -A -o json';

/**
 * Whether the pods of the input are only part of the cluster's: they came as single Pod objects and never as a List, or
 * namespaces whose Deployments, StatefulSets or DaemonSets run pods hold none of them while other namespaces do (a
 * `kubectl get pods -n web` dump beside cluster-wide lists). Undefined when nothing says so (or no pods were given).
 */
export function partialPods(raw: RawInputs): PartialPods | undefined {
  if (!raw.provided.has('pods')) return undefined;
  if (raw.podsOneByOne) {
    return {
      detail: `the input's pods came one by one (${raw.pods.length} Pod object(s), as \`kubectl get pod NAME -o json\` prints), not as the cluster's list: add \`${ALL_PODS}\``,
      missingNamespaces: [],
      oneByOne: true,
    };
  }
  const withPods = new Set(raw.pods.map((p) => p.metadata.namespace ?? 'default'));
  if (withPods.size === 0) return undefined;
  if (!CLUSTER_KINDS.some((k) => raw.provided.has(k))) {
    const held = [...withPods].sort();
    const ns = held.length === 1 ? held[0] : 'NAMESPACE';
    return {
      detail: `the input is pods alone (${raw.pods.length} pod(s) of namespace${held.length === 1 ? '' : 's'} ${held.slice(0, 5).join(', ')}${held.length > 5 ? ` and ${held.length - 5} more` : ''}, as \`kubectl get pods -n ${ns} -o json\` prints), without the cluster around them: whether they fit a node and what CA does for them are not evaluated. Add \`${ALL_PODS}\`, \`kubectl get nodes -o json\`, the workloads and CA's Deployment (\`casdoctor snapshot\` writes them all)`,
      missingNamespaces: [],
      oneByOne: false,
      podsOnly: held,
    };
  }
  const missing = new Set<string>();
  const runs = (o: { metadata: { namespace?: string } }) => {
    const ns = o.metadata.namespace ?? 'default';
    if (!withPods.has(ns)) missing.add(ns);
  };
  for (const d of [...raw.deployments, ...raw.statefulSets]) if ((d.spec?.replicas ?? 1) > 0) runs(d);
  if (raw.nodes.length > 0) for (const d of raw.daemonSets) runs(d);
  if (missing.size === 0) return undefined;
  const names = [...missing].sort();
  const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
  return {
    detail: `the input holds no pods of namespace(s) ${shown}, whose workloads run pods (pods of ${withPods.size === 1 ? `namespace ${[...withPods][0]}` : 'some namespaces'} only, as \`kubectl get pods -n NAMESPACE\` prints): add \`${ALL_PODS}\``,
    missingNamespaces: names,
    oneByOne: false,
  };
}

/** Does the input hold pods of this namespace only partly (or maybe not at all)? */
export function podsMissingIn(p: PartialPods | undefined, namespace: string): boolean {
  return p !== undefined && (p.oneByOne || p.missingNamespaces.includes(namespace) || (p.podsOnly !== undefined && !p.podsOnly.includes(namespace)));
}

/**
 * Workload manifests handed to --from (`-f` was meant): no Node, and no Pod or workload carries what the API server
 * adds to every object it stores (uid, resourceVersion, creationTimestamp) or a pod's status.
 */
export function looksLikeManifests(raw: RawInputs): boolean {
  if (raw.nodes.length > 0 || raw.provided.has('nodes')) return false;
  const objects = [...raw.pods, ...raw.deployments, ...raw.statefulSets, ...raw.daemonSets, ...raw.replicaSets, ...raw.jobs];
  if (objects.length === 0) return false;
  const stored = (m: { uid?: string; resourceVersion?: string; creationTimestamp?: string }) =>
    m.uid !== undefined || m.resourceVersion !== undefined || m.creationTimestamp !== undefined;
  return objects.every((o) => !stored(o.metadata)) && raw.pods.every((p) => p.status?.phase === undefined);
}
