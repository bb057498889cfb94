import type { PodDisruptionBudget } from '../model/k8s.js';
import { shellCommand } from '../model/shell.js';
import type { TrackedPdb } from '../simulate/drainability/pdb-tracker.js';
import type { BlockerDetail, NodeScaleDown } from '../simulate/scale-down.js';
import { defineCheck } from './define-check.js';
import { blockersWithReason, pdbSubject } from './lib/scale-down.js';
import { listNames, podRef } from './lib/support.js';

function specText(pdb: PodDisruptionBudget): string {
  const s = pdb.spec ?? {};
  if (s.maxUnavailable !== undefined) return `maxUnavailable: ${s.maxUnavailable}`;
  if (s.minAvailable !== undefined) return `minAvailable: ${s.minAvailable}`;
  return 'no minAvailable/maxUnavailable';
}

function fix(t: TrackedPdb): string {
  const pdb = t.pdb;
  const ns = pdb.metadata.namespace ?? 'default';
  const name = pdb.metadata.name ?? '';
  const st = pdb.status ?? {};
  const s = pdb.spec ?? {};
  const lines: string[] = [];
  if (t.initial >= 1 && t.consumedBy.length > 0) {
    lines.push(
      `The budget (${t.initial}) went to ${t.consumedBy.map((c) => `node ${c.node}`).join(', ')}, simulated earlier in the same CA loop. CA removes nodes under this PDB one budget at a time: these nodes become candidates once the earlier ones are gone, or raise the budget.`,
    );
  }
  if (s.maxUnavailable === 0 || s.maxUnavailable === '0%') {
    lines.push(
      'maxUnavailable: 0 never allows a voluntary eviction, so no node running these pods can be drained. Allow one at a time:',
      `  ${shellCommand(['kubectl', 'patch', 'pdb', '-n', ns, name, '--type', 'merge', '-p', JSON.stringify({ spec: { maxUnavailable: 1 } })])}`,
    );
  } else if (
    s.minAvailable !== undefined &&
    typeof s.minAvailable === 'number' &&
    st.expectedPods !== undefined &&
    s.minAvailable >= st.expectedPods
  ) {
    lines.push(
      `minAvailable: ${s.minAvailable} equals the ${st.expectedPods} pod(s) it selects: no pod may ever go. Lower it (or scale the workload up), e.g.`,
      `  ${shellCommand(['kubectl', 'patch', 'pdb', '-n', ns, name, '--type', 'merge', '-p', JSON.stringify({ spec: { minAvailable: Math.max(0, st.expectedPods - 1) } })])}`,
    );
  } else if (st.currentHealthy !== undefined && st.desiredHealthy !== undefined && st.currentHealthy <= st.desiredHealthy) {
    lines.push(
      `Only ${st.currentHealthy} of ${st.expectedPods ?? '?'} selected pods are healthy and the PDB needs ${st.desiredHealthy}: fix the unhealthy pods (or relax ${specText(pdb)}) and the budget returns.`,
    );
  }
  if (lines.length === 0) lines.push(`Relax ${specText(pdb)} so at least one disruption is allowed.`);
  return lines.join('\n');
}

export default defineCheck({
  meta: {
    id: 'pdb-blocks-scale-down',
    title: 'PodDisruptionBudget with no disruptions left blocks scale-down',
    summary: "A PDB that allows no disruption (now, or after earlier nodes in CA's loop used it) keeps nodes (NotEnoughPdb).",
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['pods', 'nodes', 'autoScalingGroups', 'pdbs'],
    messages: {
      exhausted:
        'PodDisruptionBudget {pdb} ({spec}) allows {allowed} disruption(s){consumed}: it keeps {count} node(s): {nodes} (NotEnoughPdb).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/pdb/rule.go, core/scaledown/pdb/basic.go',
  },
  run(ctx) {
    const byPdb = new Map<TrackedPdb, Array<{ node: NodeScaleDown; blocker: BlockerDetail }>>();
    for (const hit of blockersWithReason(ctx.analysis, 'NotEnoughPdb')) {
      for (const t of hit.blocker.pdbs ?? []) byPdb.set(t, [...(byPdb.get(t) ?? []), hit]);
    }
    const key = (t: TrackedPdb) => `${t.pdb.metadata.namespace}/${t.pdb.metadata.name}`;
    for (const [t, hits] of [...byPdb].sort(([x], [y]) => (key(x) < key(y) ? -1 : 1))) {
      const pdb = t.pdb;
      const nodes = [...new Set(hits.map((h) => h.node.name))];
      const consumed = t.initial >= 1 && t.consumedBy.length > 0;
      const st = pdb.status ?? {};
      ctx.report({
        messageId: 'exhausted',
        data: {
          pdb: key(t),
          spec: specText(pdb),
          allowed: t.initial,
          consumed: consumed ? `, used up in CA's loop by node ${t.consumedBy.map((c) => c.node).join(', ')}` : '',
          count: nodes.length,
          nodes: listNames(nodes),
        },
        subject: pdbSubject(pdb),
        caReason: 'NotEnoughPdb',
        evidence: [
          {
            source: `PodDisruptionBudget ${key(t)} status`,
            observed: `disruptionsAllowed ${st.disruptionsAllowed ?? 0}, currentHealthy ${st.currentHealthy ?? '?'}, desiredHealthy ${st.desiredHealthy ?? '?'}, expectedPods ${st.expectedPods ?? '?'}`,
            expected: 'disruptionsAllowed >= 1 for each pod CA moves',
          },
          ...hits.slice(0, 5).map((h) => ({
            source: `CA on node ${h.node.name}`,
            observed: h.blocker.message,
          })),
          ...(hits.length > 5 ? [{ source: 'pods', observed: listNames(hits.map((h) => podRef(h.blocker.pod))) }] : []),
        ],
        remediation: fix(t),
      });
    }
  },
});
