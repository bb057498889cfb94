import { defineCheck } from './define-check.js';
import { evaluatePdb, podsOf } from './lib/preflight-pdb.js';
import { context, listNames, objectSubject, workloadRef } from './lib/preflight.js';

export default defineCheck({
  meta: {
    id: 'pdb-allows-no-disruption',
    title: 'PodDisruptionBudget that allows no disruption',
    summary:
      'A PDB that allows no disruption once its pods run (minAvailable >= replicas, maxUnavailable 0, 100%): nodes running them are never scaled down.',
    severity: 'warning',
    commands: ['preflight'],
    requires: [],
    messages: {
      none: 'PodDisruptionBudget {pdb} ({rule}) allows 0 disruptions for the {pods} pod(s) of {workloads}: CA cannot evict them, so their nodes are never scaled down (NotEnoughPdb).',
      zero: 'PodDisruptionBudget {pdb} ({rule}) allows no disruption at all: CA cannot evict the pods it selects, so their nodes are never scaled down (NotEnoughPdb).',
    },
    upstream:
      'cluster-autoscaler simulator/drainability/rules/pdb/rule.go, core/scaledown/pdb/basic.go; k8s pkg/controller/disruption/disruption.go',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    for (const pdb of pf.pdbs) {
      const e = evaluatePdb(pdb, pf.workloads, pf.clusterPods);
      if (e.disruptionsAllowed === undefined || e.disruptionsAllowed > 0) continue;
      const name = `${pdb.object.metadata.namespace}/${pdb.object.metadata.name}`;
      const byRule = /^maxUnavailable 0+%?$|^minAvailable 100%$/.test(e.rule);
      if (!byRule && e.workloads.length === 0) continue;
      const replicas = e.workloads.map((w) => {
        const n = podsOf(w);
        return `${workloadRef(w)}: ${n} pod(s)${w.hpaMinReplicas !== undefined ? ' (HPA minReplicas)' : ''}`;
      });
      ctx.report({
        messageId: byRule || e.expectedPods === undefined ? 'zero' : 'none',
        data: {
          pdb: name,
          rule: e.rule,
          pods: e.expectedPods ?? 0,
          workloads: listNames(e.workloads.map(workloadRef)) || 'no workload in the inputs',
        },
        subject: objectSubject(pdb),
        caReason: 'NotEnoughPdb',
        evidence: [
          {
            source: `PodDisruptionBudget ${name}`,
            observed: e.rule,
            expected: 'at least 1 allowed disruption',
          },
          ...replicas.map((r) => ({ source: 'selected workload', observed: r })),
        ],
        remediation: [
          'Allow at least one disruption:',
          '  spec:',
          '    maxUnavailable: 1        # instead of minAvailable equal to the replica count',
          'or run more replicas than minAvailable. Every drain (scale-down, node upgrades) waits on this budget.',
        ].join('\n'),
      });
    }
  },
});
