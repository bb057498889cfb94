import {
  eksAllocatableEstimate,
  fmt,
  humanResource,
  realShape,
  relevanceText,
  targetedPods,
} from '../providers/aws/asg-audit.js';
import { parseResourceList, podRequests } from '../simulate/resources.js';
import { RESOURCES_PREFIX } from '../providers/aws/template.js';
import { defineCheck } from './define-check.js';
import {
  groupSubject,
  scratchCases,
  severityForPods,
  taggedResources,
  tagCommand,
  workloadList,
  workloadNames,
} from '../providers/aws/asg-audit-checks.js';

const MEMORY_TOLERANCE = 0.1;

export default defineCheck({
  meta: {
    id: 'template-allocatable-overstated',
    title: "CA's scratch template counts the whole machine as allocatable",
    summary:
      "CA's AWS scratch template sets allocatable = capacity (no kube-reserved, no eviction threshold), so it promises more CPU and memory than a new node offers.",
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'pods'],
    providers: ['aws'],
    messages: {
      overstated:
        "Node group {group}: CA's scratch template offers {template} allocatable (its whole capacity), a real {type} node {realWord} {real}; {effect} ({when}).",
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go buildNodeFromTemplate ("TODO: use proper allocatable!!")',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const { g, s, info, relevance } of scratchCases(a)) {
      const shape = realShape(a, g);
      if (shape && !shape.sameType) continue; // template-capacity-mismatch reports the different type
      const estimate = shape
        ? undefined
        : s.instanceTypeInfo
          ? eksAllocatableEstimate(s.instanceTypeInfo)
          : undefined;
      const real = shape ?? estimate;
      if (!real) continue;
      const tagged = taggedResources(g);
      const cap = parseResourceList(s.node.status?.capacity);
      const resources = ['cpu', 'memory'].filter((r) => {
        const mine = info.allocatable[r];
        const theirs = real.allocatable[r];
        if (tagged.has(r) || mine === undefined || theirs === undefined || mine <= theirs) return false;
        // a capacity that differs wholesale is template-capacity-mismatch's finding
        const realCap = real.capacity[r];
        if (realCap === undefined || cap[r] === undefined) return true;
        return r === 'cpu' ? cap[r] === realCap : Math.abs(cap[r] - realCap) <= realCap * MEMORY_TOLERANCE;
      });
      if (resources.length === 0) continue;
      const over = info.requested;
      // pods whose requests fit the template but not a real node
      const affected = targetedPods(a, g).filter((p) => {
        const req = podRequests(p);
        const fitsTemplate = resources.every((r) => (req[r] ?? 0) <= info.allocatable[r] - (over[r] ?? 0));
        const fitsReal = resources.every((r) => (req[r] ?? 0) <= real.allocatable[r] - (over[r] ?? 0));
        return fitsTemplate && !fitsReal;
      });
      if (relevance === 'unlikely' && affected.length === 0) continue;
      const severity = severityForPods(relevance, affected);
      const workloads = workloadNames(a, affected);
      const list = (m: Record<string, number>) =>
        resources.map((r) => `${r} ${humanResource(r, m[r])}`).join(', ');
      ctx.report({
        messageId: 'overstated',
        severity,
        data: {
          group: g.name,
          template: list(info.allocatable),
          type: s.instanceType ?? '',
          realWord: real.estimated ? 'has at most' : 'has',
          real: list(real.allocatable),
          effect:
            workloads.length > 0
              ? `CA scales up for ${workloadList(workloads)}, whose requests fit only the template`
              : 'a pod that fits the template but not a real node makes CA add a node the pod cannot use',
          when: relevanceText(relevance, g),
        },
        subject: groupSubject(g),
        nodeGroup: g.name,
        evidence: [
          {
            source: `ASG ${g.name} scratch template`,
            observed: `allocatable = capacity: ${list(info.allocatable)}`,
          },
          real.estimated
            ? { source: 'estimate', observed: `allocatable ${list(real.allocatable)}: ${real.basis}` }
            : {
                source: `node${real.nodes.length > 1 ? 's' : ''} ${real.nodes
                  .map((n) => n.metadata.name)
                  .slice(0, 3)
                  .join(', ')}`,
                observed: `allocatable ${list(real.allocatable)}`,
              },
          ...affected
            .filter((p) => !p.spec.nodeName)
            .slice(0, 3)
            .map((p) => ({ source: `Pod ${p.metadata.namespace}/${p.metadata.name}`, observed: 'Pending' })),
        ],
        remediation: `Tell CA what a new node really offers (each tag sets capacity and allocatable):\n${resources
          .map((r) => `  ${tagCommand(g.name, `${RESOURCES_PREFIX}${r}`, fmt(r, real.allocatable[r]))}`)
          .join('\n')}`,
      });
    }
  },
});
