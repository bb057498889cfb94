import type { Evidence } from '../model/findings.js';
import type { FailureCategory, GroupPlacement } from '../simulate/preflight.js';
import { defineCheck } from './define-check.js';
import {
  caShortReason,
  context,
  listNames,
  placements,
  templateSource,
  workloadRef,
  workloadSubject,
} from './lib/preflight.js';

const ADVICE: Record<FailureCategory | 'gate', string> = {
  resources:
    "Lower the pod's requests below the largest template's allocatable, or add a node group with a larger instance type.",
  gpu: 'Run it on a GPU instance type; for a group that scales from zero, tag the ASG k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu=<count>.',
  selector:
    "Make the pod's nodeSelector / required node affinity match a group's labels, or give the group those labels (and node-template/label tags so CA's template has them).",
  arch: 'The pod selects a CPU architecture no group runs: build a multi-arch image and drop the selector, or add a group of that architecture (e.g. Graviton for arm64).',
  os: 'The pod selects an operating system no group runs (CA templates are always linux unless a node-template/label tag says otherwise).',
  zone: 'The pod (or its volumes) asks for a zone no group launches into: add the zone to a group, or one group per zone.',
  taint:
    'Tolerate the taint in the pod template, or point the pod at a group without it (taints come from node-template/taint tags and EKS node groups).',
  ports: 'A hostPort the pod asks for is taken by a DaemonSet on every node: change the port.',
  volume: "Check the claims' StorageClasses: their allowedTopologies must include the groups' zones.",
  topology: 'The topology spread constraint needs a label the templates lack.',
  other: 'See the failing predicate for each group.',
  gate: 'Make CA manage a group that fits (auto-discovery tags or --nodes), raise its maxSize above 0, or fix what keeps CA from building its template.',
};

export default defineCheck({
  meta: {
    id: 'workload-unplaceable',
    title: 'No node group can run the workload, even scaled from zero',
    summary:
      "A workload no node group can place even when CA scales it from zero: each group's failing predicate with values.",
    severity: 'error',
    commands: ['preflight'],
    requires: ['autoScalingGroups'],
    messages: {
      none: '{workload} fits none of the {count} node group(s), even when CA scales them from zero: {reasons}.',
      noGroups: '{workload} has no node group to run on: the inputs define none CA could scale.',
      noneManaged:
        "CA's discovery flags ({discovery}) manage none of the {count} node group(s) ({groups}): CA scales up for no workload ({workloads} among the manifests).",
    },
    upstream:
      'cluster-autoscaler core/scaleup/orchestrator/orchestrator.go (SchedulablePodGroups on template nodes), cloudprovider/aws/aws_manager.go buildNodeFromTemplate',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    // a group casdoctor cannot build offline may take the workload: "not evaluated", a skipped entry, never a failure
    const undecided = new Map<string, { detail: string; workloads: string[] }>();
    const all = placements(ctx.analysis);
    // CA's flags manage none of the groups: one discovery finding, not the same verdict on every workload
    if (pf.groups.length > 0 && pf.groups.every((g) => g.gate?.kind === 'not-discovered') && all.length > 0) {
      const ca = ctx.analysis.ca;
      const f = ca.flags;
      const discovery =
        [
          ...f.nodeGroupAutoDiscovery.value.map((v) => `--node-group-auto-discovery=${v}`),
          ...f.nodes.value.map((v) => `--nodes=${v}`),
        ].join(' ') || 'no --nodes or --node-group-auto-discovery';
      ctx.report({
        messageId: 'noneManaged',
        data: {
          discovery,
          count: pf.groups.length,
          groups: listNames(pf.groups.map((g) => g.group.name)),
          workloads: all.length,
        },
        subject: {
          kind: 'Deployment',
          name: ca.deployment?.name ?? 'cluster-autoscaler',
          ...(ca.deployment?.namespace ? { namespace: ca.deployment.namespace } : {}),
        },
        evidence: pf.groups.slice(0, 5).map((g) => ({
          source: `node group ${g.group.name}`,
          observed: g.gate?.detail ?? 'not discovered',
        })),
        remediation:
          "Make CA's --node-group-auto-discovery tags match the groups' ASG tags (k8s.io/cluster-autoscaler/enabled and k8s.io/cluster-autoscaler/<cluster-name>), or list them with --nodes=<min>:<max>:<asg>.",
      });
      return;
    }
    for (const p of all) {
      if (p.caFits.length > 0 || p.realOnly.length > 0) continue;
      const w = p.workload;
      if (p.notEvaluated.length > 0) {
        for (const g of p.notEvaluated) {
          const name = g.g.group.name;
          const entry = undecided.get(name) ?? { detail: g.g.gate?.detail ?? caShortReason(g), workloads: [] };
          entry.workloads.push(workloadRef(w));
          undecided.set(name, entry);
        }
        continue;
      }
      if (p.groups.length === 0) {
        ctx.report({
          messageId: 'noGroups',
          data: { workload: workloadRef(w) },
          subject: workloadSubject(w),
          evidence: [{ source: 'node groups', observed: 'none in the inputs' }],
          remediation:
            'Pass the node groups: --eksctl <ClusterConfig>, --node-groups <file>, --from <dump> or --live.',
        });
        continue;
      }
      const reasons = p.groups.map((g) => `${g.g.group.name}: ${caShortReason(g)}`);
      const evidence: Evidence[] = p.groups.map((g) => groupEvidence(g));
      const categories = new Set<FailureCategory | 'gate'>();
      for (const g of p.groups) {
        if (g.g.gate) categories.add('gate');
        else for (const d of g.ca?.described ?? []) categories.add(d.category);
      }
      const first = p.groups.find((g) => g.ca?.failures[0]);
      ctx.report({
        messageId: 'none',
        data: { workload: workloadRef(w), count: p.groups.length, reasons: listNames(reasons, 4, '; ') },
        subject: workloadSubject(w),
        ...(first?.ca?.failures[0] ? { schedulerReason: first.ca.failures[0].reasons[0] } : {}),
        evidence: [...evidence, ...p.notes.map((n) => ({ source: 'casdoctor', observed: n }))],
        // the provider's own words on an externalgrpc cluster (no tags, no launch templates there)
        remediation: [...categories]
          .map((c) => `- ${ctx.analysis.provider.words.placementAdvice?.[c] ?? ADVICE[c]}`)
          .join('\n'),
      });
    }
    for (const [name, u] of [...undecided].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      ctx.skip(
        'not-evaluated',
        `node group ${name} not evaluated: ${u.detail}. Workloads no evaluated group fits, so not evaluated: ${listNames(u.workloads, 6)}`,
      );
    }
  },
});

function groupEvidence(g: GroupPlacement): Evidence {
  if (g.g.gate) {
    return { source: `node group ${g.g.group.name}`, observed: `${g.g.gate.reason}: ${g.g.gate.detail}` };
  }
  const lines = (g.ca?.described ?? []).map(
    (d) => `${d.plugin}: ${d.reasons.join(', ')}${d.values ? ` (${d.values})` : ''}`,
  );
  for (const ne of g.ca?.notEvaluated ?? [])
    lines.push(`${ne.plugin} not evaluated: ${(ne.details ?? []).join('; ')}`);
  return { source: templateSource(g.g), observed: lines.join(' | ') || 'fits' };
}
