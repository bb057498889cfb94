// Which ASGs matter to this cluster's report, and the cluster names the snapshot knows of (ASG tags, CA's flags).
import type { CaConfig } from '../../model/ca-config.js';
import type { NodeGroup, NodeGroupsResult } from '../../model/node-group.js';

/** Cluster names this snapshot knows of: from CA's discovery tags (k8s.io/cluster-autoscaler/<name>) and eks: tags of owned ASGs. */
export function awsClusterNames(ca: CaConfig, all: NodeGroupsResult): Set<string> {
  const names = new Set<string>();
  for (const key of Object.keys(ca.autoDiscovery.tags)) {
    const m = /^k8s\.io\/cluster-autoscaler\/(.+)$/.exec(key);
    if (m && m[1] !== 'enabled' && !m[1].startsWith('node-template/')) names.add(m[1]);
  }
  const clusterName = ca.flags.clusterName?.value;
  if (clusterName) names.add(clusterName);
  for (const g of all.nodeGroups) {
    if (g.provider !== 'aws' || g.nodes.length === 0) continue;
    for (const t of g.asg.Tags ?? []) {
      if (t.Key === 'eks:cluster-name' && t.Value) names.add(t.Value);
      const m = /^kubernetes\.io\/cluster\/(.+)$/.exec(t.Key);
      if (m) names.add(m[1]);
    }
  }
  return names;
}

// one computation per groups result and CA config: relevance is asked once per group
const cache = new WeakMap<NodeGroupsResult, WeakMap<CaConfig, { names: Set<string>; tagKeys: Set<string> }>>();
function clusterNamesOnce(ca: CaConfig, all: NodeGroupsResult): { names: Set<string>; tagKeys: Set<string> } {
  let byCa = cache.get(all);
  if (!byCa) cache.set(all, (byCa = new WeakMap()));
  let hit = byCa.get(ca);
  if (!hit) {
    const names = awsClusterNames(ca, all);
    hit = { names, tagKeys: new Set([...names].map((n) => `kubernetes.io/cluster/${n}`)) };
    byCa.set(ca, hit);
  }
  return hit;
}

/** An ASG matters when CA discovered it, it owns nodes, or it is tagged for one of the cluster's names. */
export function isRelevantAsg(group: NodeGroup, ca: CaConfig, all: NodeGroupsResult): boolean {
  if (group.discovered || group.nodes.length > 0) return true;
  if (group.provider !== 'aws') return false;
  const { names, tagKeys } = clusterNamesOnce(ca, all);
  return (group.asg.Tags ?? []).some(
    (t) => tagKeys.has(t.Key) || (t.Key === 'eks:cluster-name' && names.has(t.Value ?? '')),
  );
}
