import type { GroupPlacement } from '../simulate/preflight.js';
import { findUntoleratedTaint } from '../simulate/predicates/taint-toleration.js';
import { TAINT_PREFIX } from '../providers/aws/template.js';
import { defineCheck } from './define-check.js';
import { listNames, placements, templateTagAdvice, workloadRef, workloadSubject } from './lib/preflight.js';

/** A few words for the message ("memory 7680Mi > 7390Mi free"); the full values go to the evidence. */
function realReason(g: GroupPlacement): string {
  return g.real?.described[0]?.short ?? 'does not fit';
}

function realValues(g: GroupPlacement): string {
  const d = g.real?.described[0];
  return d ? `${d.reasons.join(', ')}: ${d.values}` : 'does not fit';
}

export default defineCheck({
  meta: {
    id: 'workload-fits-template-not-real-node',
    title: "Workload fits CA's template but not the nodes CA would add",
    summary:
      "CA's template (allocatable = capacity, only tagged taints) takes the workload but the real node it adds does not: scale-up without a place for the pod.",
    severity: 'error',
    commands: ['preflight'],
    requires: ['autoScalingGroups'],
    messages: {
      all: "{workload} fits CA's template of {groups} but not a real node of it ({reason}): CA adds a node the pod then cannot use.",
      some: "{workload} fits CA's templates of {bad} and {good}, but real nodes of {bad} reject it ({reason}): if CA's expander picks {bad}, the new node does not take the pod.",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go buildNodeFromTemplate ("TODO: use proper allocatable!!"); kubernetes/autoscaler#2057',
  },
  run(ctx) {
    for (const p of placements(ctx.analysis)) {
      const bad = p.caFits.filter((g) => g.real && !g.real.fits && g.real.failures.length > 0);
      if (bad.length === 0) continue;
      const good = p.caFits.filter((g) => !bad.includes(g));
      const w = p.workload;
      const advice: string[] = [];
      for (const g of bad) {
        for (const d of g.real?.described ?? []) {
          if (d.plugin === 'NodeResourcesFit') {
            advice.push(
              `${g.g.group.name}: CA's template counts the instance's whole capacity; real nodes keep back kube-reserved, system-reserved and eviction memory. Size requests for the real allocatable (${d.values}), or use a larger instance type.`,
            );
          } else if (d.plugin === 'TaintToleration' && g.g.real) {
            // every untolerated taint the template lacks goes in the fix, not just the first the scheduler met
            const inTemplate = new Set((g.g.scratch.node?.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`));
            const missing = (g.g.real.node.spec?.taints ?? []).filter(
              (t) => !inTemplate.has(`${t.key}:${t.effect}`) && findUntoleratedTaint(p.pod.spec.tolerations, [t]),
            );
            if (missing.length > 0) {
              const text = missing.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(', ');
              advice.push(
                `${g.g.group.name}: its nodes carry taint(s) ${text} that CA's template lacks, so CA scales it for pods that cannot run there. ${templateTagAdvice(
                  g.g,
                  missing.map((t) => ({ key: `${TAINT_PREFIX}${t.key}`, value: `${t.value ?? ''}:${t.effect}` })),
                )}`,
              );
            }
          } else {
            advice.push(
              `${g.g.group.name}: ${d.reasons.join(', ')} on real nodes (${d.values}); make the template and the nodes agree.`,
            );
          }
        }
      }
      const names = (list: GroupPlacement[]) => listNames(list.map((g) => g.g.group.name));
      ctx.report({
        messageId: good.length === 0 ? 'all' : 'some',
        data: {
          workload: workloadRef(w),
          groups: names(bad),
          bad: names(bad),
          good: names(good),
          reason: realReason(bad[0]),
        },
        subject: workloadSubject(w),
        severity: good.length === 0 ? 'error' : 'warning',
        ...(bad[0].real?.failures[0] ? { schedulerReason: bad[0].real.failures[0].reasons[0] } : {}),
        evidence: bad.map((g) => ({
          source: g.g.real?.source ?? `a ${g.g.group.name} node`,
          observed: realValues(g),
          expected: "what CA's template promised",
        })),
        remediation: [...new Set(advice)].join('\n'),
      });
    }
  },
});
