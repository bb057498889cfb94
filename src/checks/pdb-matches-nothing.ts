import { describeLabelSelector } from '../simulate/predicates/labels.js';
import { defineCheck } from './define-check.js';
import { evaluatePdb } from './lib/preflight-pdb.js';
import { context, objectSubject } from './lib/preflight.js';
import { operatorPodsSelectedBy } from '../simulate/preflight.js';

export default defineCheck({
  meta: {
    id: 'pdb-matches-nothing',
    title: 'PodDisruptionBudget that selects no pod',
    summary:
      'A PDB whose selector matches no workload in the inputs (or a null selector): it protects nothing, usually a label typo.',
    severity: 'warning',
    commands: ['preflight'],
    requires: [],
    messages: {
      nothing:
        'PodDisruptionBudget {pdb} selects {selector}, which matches no workload in namespace {namespace} among the inputs{cluster}: it protects nothing.',
      nullSelector:
        'PodDisruptionBudget {pdb} has no selector: in policy/v1 that selects no pod, so it protects nothing.',
      invalid: 'PodDisruptionBudget {pdb} has an invalid selector ({selector}): it selects no pod.',
    },
    upstream:
      'k8s pkg/controller/disruption/disruption.go getPodsForPdb; policy/v1 PodDisruptionBudgetSpec.selector',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    const clusterGiven = ctx.analysis.raw.provided.has('pods');
    for (const pdb of pf.pdbs) {
      const e = evaluatePdb(pdb, pf.workloads, pf.clusterPods);
      const name = `${pdb.object.metadata.namespace}/${pdb.object.metadata.name}`;
      const ns = pdb.object.metadata.namespace ?? 'default';
      const selector = describeLabelSelector(pdb.object.spec?.selector);
      const base = { subject: objectSubject(pdb), remediation: '' };
      if (!e.selectorSelects) {
        ctx.report({
          ...base,
          messageId: 'nullSelector',
          data: { pdb: name },
          evidence: [
            {
              source: `PodDisruptionBudget ${name} spec.selector`,
              observed: 'absent',
              expected: 'the pod labels of the workload to protect',
            },
          ],
          remediation:
            'Add spec.selector.matchLabels with the pod template labels of the workload it protects.',
        });
        continue;
      }
      if (!e.selectorValid) {
        ctx.report({
          ...base,
          messageId: 'invalid',
          data: { pdb: name, selector },
          evidence: [{ source: `PodDisruptionBudget ${name} spec.selector`, observed: selector }],
          remediation: 'Fix the selector: In/NotIn need values, Exists/DoesNotExist take none.',
        });
        continue;
      }
      if (e.workloads.length > 0 || e.clusterPods > 0) continue;
      // pods an operator creates from a Prometheus/Alertmanager among the inputs: named in the notes, not a typo
      if (operatorPodsSelectedBy(pf, pdb.object).length > 0) continue;
      const sameNs = pf.workloads.filter((w) => w.namespace === ns);
      ctx.report({
        ...base,
        messageId: 'nothing',
        data: {
          pdb: name,
          selector,
          namespace: ns,
          cluster: clusterGiven ? ' or running in the cluster' : '',
        },
        evidence: [
          { source: `PodDisruptionBudget ${name} spec.selector`, observed: selector },
          ...sameNs.slice(0, 5).map((w) => ({
            source: `${w.kind} ${w.namespace}/${w.name} pod labels`,
            observed:
              Object.entries(w.templateMeta.labels ?? {})
                .map(([k, v]) => `${k}=${v}`)
                .join(',') || 'none',
          })),
        ],
        remediation:
          "Make spec.selector match the pod template labels of the workload it should protect (not the workload's own metadata.labels).",
      });
    }
  },
});
