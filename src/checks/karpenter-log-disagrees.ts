import { defineCheck } from './define-check.js';
import { karpenterDisruptions, karpenterGate, karpenterLog, karpenterPendingViews } from './lib/karpenter.js';
import { pendingAnalyses, podSubject } from './lib/support.js';

/** Only Karpenter's latest word counts: a line older than this before the log's last line is history, not its view. */
const RECENT_MS = 10 * 60_000;

/** The disruption reason a "disrupting node(s)" line carries -> the method casdoctor evaluates for it. */
const METHOD_OF: Record<string, 'emptiness' | 'consolidation' | 'drift'> = { empty: 'emptiness', underutilized: 'consolidation', drifted: 'drift' };

const WHY =
  "Karpenter's log is from another moment than the snapshot (pods moved, a PDB or annotation changed since), Karpenter sees objects casdoctor was not given, or casdoctor's model is wrong here.";

export default defineCheck({
  meta: {
    id: 'karpenter-log-disagrees',
    title: "Karpenter's log says something else than casdoctor about a pod or a node",
    summary:
      "Karpenter's own latest log line for a Pending pod (could not schedule it) or a node (disrupting it) contradicts casdoctor's verdict: one of the two is wrong, and both are shown.",
    severity: 'warning',
    commands: ['why-pending', 'scale-down-blockers'],
    requires: ['pods'],
    autoscaler: 'karpenter',
    messages: {
      podFits: 'Pod {pod}: Karpenter logged "{logged}" at {at}, but casdoctor finds {ours}.',
      nodeBlocked: 'Node {node}: Karpenter logged "{logged}" at {at}, but casdoctor finds {method} blocked: {ours}.',
    },
    upstream:
      'kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go ("could not schedule pod"), pkg/controllers/disruption/queue.go ("disrupting node(s)")',
  },
  run(ctx) {
    const a = ctx.analysis;
    if (!karpenterGate(ctx, ['nodePools'])) return;
    const log = karpenterLog(a);
    if (!log) {
      ctx.skip(
        'not-provided',
        'no Karpenter log line in the input: add `kubectl -n kube-system logs deploy/karpenter --since=1h > karpenter.log` to the dump (live, casdoctor reads it over --ca-log-since)',
      );
      return;
    }
    const end = log.to ?? a.now.getTime();
    const at = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');
    const evidence = (where: string, line: number, text: string) => ({ source: `Karpenter log ${where}:${line}`, observed: text });
    if (ctx.command === 'why-pending') {
      for (const { p, v } of karpenterPendingViews(a, pendingAnalyses(a))) {
        const l = v.logged;
        const x = v.explanation;
        if (!l || l.kind !== 'error' || !l.text.startsWith('could not schedule pod') || end - l.time > RECENT_MS) continue;
        if (!x.eligibility.provisionable) continue;
        const ours =
          x.outcome === 'in-flight' && x.inFlight
            ? `it fits ${x.inFlight.kind === 'node' ? 'node' : 'NodeClaim'} ${x.inFlight.name}, which Karpenter already has`
            : x.outcome === 'new-node' && x.chosen
              ? `NodePool ${x.chosen} fits it and Karpenter would launch a node`
              : undefined;
        if (!ours) continue;
        ctx.report({
          messageId: 'podFits',
          data: { pod: `${p.report.namespace}/${p.report.name}`, logged: l.text, at: at(l.time), ours },
          subject: podSubject(p.pod),
          caReason: l.text,
          evidence: [evidence(l.where, l.line, l.text), { source: 'casdoctor', observed: ours }],
          remediation: `${WHY} Look at the NodePool's verdict lines in why-pending and at the error Karpenter logged: a requirement, a limit or an offering casdoctor reads differently.`,
        });
      }
      return;
    }
    if (ctx.command !== 'scale-down-blockers') return;
    for (const d of karpenterDisruptions(a)) {
      const l = (d.node ? log.nodes.get(d.node) : undefined) ?? (d.nodeClaim ? log.nodes.get(d.nodeClaim) : undefined);
      if (!l || l.kind !== 'disrupting' || !l.reason || end - l.time > RECENT_MS) continue;
      const method = METHOD_OF[l.reason];
      if (!method) continue;
      // a node Karpenter is disrupting is marked: casdoctor then finds it on its way out, which agrees
      if (d.blockers.some((b) => b.id === 'marked-for-deletion')) continue;
      const verdict = d.methods.find((m) => m.method === method);
      if (!verdict || verdict.possible) continue;
      const ours = verdict.blockedBy.length
        ? d.blockers
            .filter((b) => verdict.blockedBy.includes(b.id))
            .map((b) => b.karpenterText ?? b.id)
            .join('; ')
        : verdict.detail;
      const name = d.node ?? `NodeClaim ${d.nodeClaim ?? ''}`;
      ctx.report({
        messageId: 'nodeBlocked',
        data: { node: name, logged: l.text, at: at(l.time), method, ours },
        subject: d.node ? { kind: 'Node', name: d.node } : { kind: 'NodeClaim', name: d.nodeClaim ?? '' },
        ...(d.nodePool ? { nodeGroup: `nodepool/${d.nodePool}` } : {}),
        caReason: l.text,
        evidence: [evidence(l.where, l.line, l.text), { source: 'casdoctor', observed: `${method}: ${verdict.detail}` }],
        remediation: `${WHY} If the blocker is new (a do-not-disrupt pod, a PDB at 0), Karpenter's command fails validation and it logs no deletion; otherwise the node goes.`,
      });
    }
  },
});
