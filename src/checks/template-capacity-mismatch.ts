import { fmt, realShape, relevanceText, targetedPods } from '../providers/aws/asg-audit.js';
import { parseResourceList, podRequests } from '../simulate/resources.js';
import { RESOURCES_PREFIX } from '../providers/aws/template.js';
import { defineCheck } from './define-check.js';
import {
  groupSubject,
  scratchCases,
  severityFor,
  softer,
  tagCommand,
  workloadList,
  workloadNames,
} from '../providers/aws/asg-audit-checks.js';

/** Relative difference above which a capacity counts as a different shape (real RAM is a few % under nominal). */
const MEMORY_TOLERANCE = 0.1;

export default defineCheck({
  meta: {
    id: 'template-capacity-mismatch',
    title: "CA's scratch template has a different CPU or memory capacity than the group's nodes",
    summary:
      "The CPU or memory of CA's scratch template (instance-type table, requirement minimums or resource tags) differs from what the group's nodes report.",
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'nodes'],
    providers: ['aws'],
    messages: {
      differs:
        "Node group {group}: CA's scratch template ({templateType}) has {resource} {templateValue}, the group's {nodeType} nodes have {nodeValue}; {effect} ({when}).",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go buildNodeFromTemplate, updateCapacityWithRequirementsOverrides; kubernetes/autoscaler#789',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const { g, s, info, relevance } of scratchCases(a)) {
      const shape = realShape(a, g);
      if (!shape) continue;
      const cap = parseResourceList(s.node.status?.capacity);
      for (const resource of ['cpu', 'memory']) {
        const mine = cap[resource];
        const theirs = shape.capacity[resource];
        if (mine === undefined || theirs === undefined) continue;
        const differs =
          resource === 'cpu' ? mine !== theirs : Math.abs(mine - theirs) > theirs * MEMORY_TOLERANCE;
        if (!differs) continue;
        const bigger = mine > theirs;
        // workloads whose fit depends on which of the two is true
        const over = info.requested[resource] ?? 0;
        const realAlloc = shape.allocatable[resource] ?? theirs;
        const scratchAlloc = info.allocatable[resource] ?? mine;
        const affected = targetedPods(a, g).filter((p) => {
          const r = podRequests(p)[resource] ?? 0;
          return bigger
            ? r > realAlloc - over && r <= scratchAlloc - over
            : r <= realAlloc - over && r > scratchAlloc - over;
        });
        const base = severityFor(relevance);
        const severity = affected.length > 0 ? base : softer(base);
        const workloads = workloadNames(a, affected);
        const effect = bigger
          ? `CA scales up for pods a real node cannot hold${workloads.length ? ` (${workloadList(workloads)})` : ''}`
          : `CA refuses pods a real node would hold${workloads.length ? ` (${workloadList(workloads)})` : ''}`;
        ctx.report({
          messageId: 'differs',
          severity,
          data: {
            group: g.name,
            templateType: s.instanceType ?? 'unknown type',
            resource,
            templateValue: fmt(resource, mine),
            nodeType: shape.instanceType ?? 'mixed-type',
            nodeValue: fmt(resource, theirs),
            effect,
            when: relevanceText(relevance, g),
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: [
            {
              source: `ASG ${g.name} scratch template`,
              observed: `${resource} ${fmt(resource, mine)} (${s.instanceType})`,
            },
            {
              source: `node${shape.nodes.length > 1 ? 's' : ''} ${shape.nodes
                .map((n) => n.metadata.name)
                .slice(0, 3)
                .join(', ')}`,
              observed: `${resource} capacity ${fmt(resource, theirs)}, allocatable ${fmt(resource, realAlloc)}`,
            },
            ...s.notes
              .filter((n) => /requirements|MixedInstancesPolicy|instance type/.test(n))
              .map((n) => ({ source: 'CA template', observed: n })),
          ],
          remediation: shape.sameType
            ? `Tell CA what a node really offers (the tag sets capacity and allocatable):\n  ${tagCommand(g.name, `${RESOURCES_PREFIX}${resource}`, fmt(resource, realAlloc))}`
            : `The group's nodes are ${shape.instanceType ?? 'of other types'} while CA's template is ${s.instanceType}: check the launch template (see launch-template-drift) or the MixedInstancesPolicy order, so CA simulates the type the group really launches.`,
        });
      }
    }
  },
});
