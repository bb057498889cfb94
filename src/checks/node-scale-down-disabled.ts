import { shellCommand } from '../model/shell.js';
import { SCALE_DOWN_DISABLED_ANNOTATION } from '../simulate/scale-down/eligibility.js';
import { defineCheck } from './define-check.js';
import { nodeSubject, nodesWithReason } from './lib/scale-down.js';

export default defineCheck({
  meta: {
    id: 'node-scale-down-disabled',
    title: 'Node annotated scale-down-disabled',
    summary: 'The node carries cluster-autoscaler.kubernetes.io/scale-down-disabled: "true" (ScaleDownDisabledAnnotation).',
    severity: 'info',
    commands: ['scale-down-blockers'],
    requires: ['nodes', 'autoScalingGroups'],
    messages: {
      annotated: 'Node {node} is annotated {annotation}: "true": CA never removes it.',
    },
    upstream: 'cluster-autoscaler core/scaledown/eligibility/eligibility.go HasNoScaleDownAnnotation',
  },
  run(ctx) {
    for (const n of nodesWithReason(ctx.analysis, 'ScaleDownDisabledAnnotation')) {
      ctx.report({
        messageId: 'annotated',
        data: { node: n.name, annotation: SCALE_DOWN_DISABLED_ANNOTATION },
        subject: nodeSubject(n.node),
        ...(n.group ? { nodeGroup: n.group.name } : {}),
        caReason: 'ScaleDownDisabledAnnotation',
        evidence: [{ source: `Node ${n.name} metadata.annotations`, observed: `${SCALE_DOWN_DISABLED_ANNOTATION}: "true"` }],
        remediation: `If the node no longer needs protecting, remove the annotation:\n  ${shellCommand(['kubectl', 'annotate', 'node', n.name, `${SCALE_DOWN_DISABLED_ANNOTATION}-`])}`,
      });
    }
  },
});
