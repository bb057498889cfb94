// Shared body of the checks that fire when CA skips a node group a Pending pod would otherwise fit.
import type { NodeGroup } from '../../model/node-group.js';
import type { GroupEvaluation, PodAnalysis } from '../../simulate/why-pending.js';
import type { CheckContext } from '../define-check.js';
import { blocked, groupSubject, listNames, podRef } from './support.js';

type SkipKind = NonNullable<GroupEvaluation['skip']>['kind'];

/**
 * For every group skipped with `kind` for at least one blocked pod whose predicates pass on the group's template,
 * reports once per group, listing those pods. `pods`: the blocked pods to look at (default: every one in scope).
 */
export function reportSkippedGroups(
  ctx: CheckContext<'skipped'>,
  kind: SkipKind,
  remediation: (g: NodeGroup, e: GroupEvaluation) => string,
  pods: readonly PodAnalysis[] = blocked(ctx.analysis),
): void {
  const byGroup = new Map<string, { e: GroupEvaluation; pods: PodAnalysis[] }>();
  for (const p of pods) {
    for (const e of p.groups) {
      if (e.skip?.kind !== kind || !e.template.node || e.failures.length > 0 || e.notEvaluated.length > 0)
        continue;
      let entry = byGroup.get(e.group.name);
      if (!entry) byGroup.set(e.group.name, (entry = { e, pods: [] }));
      entry.pods.push(p);
    }
  }
  for (const [name, { e, pods }] of [...byGroup].sort(([x], [y]) => (x < y ? -1 : 1))) {
    ctx.report({
      messageId: 'skipped',
      data: {
        group: name,
        detail: e.skip!.detail,
        count: pods.length,
        pods: listNames(pods.map((p) => podRef(p.pod))),
      },
      subject: groupSubject(e.group),
      nodeGroup: name,
      caReason: e.skip!.reason,
      evidence: [
        { source: `node group ${name}`, observed: e.skip!.detail },
        ...pods.slice(0, 5).map((p) => ({
          source: `Pod ${podRef(p.pod)}`,
          observed: `fits the ${e.template.source === 'node' ? 'real-node' : ctx.analysis.provider.words.groupShort} template of ${name}`,
        })),
      ],
      remediation: remediation(e.group, e),
    });
  }
}
