import type { Evidence } from '../model/findings.js';
import { gatheredList } from '../model/snapshot.js';
import { shellCommand } from '../model/shell.js';
import { AWS_NOT_ATOMIC } from '../simulate/provisioning-request.js';
import { defineCheck } from './define-check.js';
import { provReqRef, provReqSimulation, provReqState } from './lib/ca-crds.js';

export default defineCheck({
  meta: {
    id: 'provisioning-request-not-provisioned',
    title: 'ProvisioningRequest not provisioned',
    summary:
      'A ProvisioningRequest is not Provisioned (waiting, failed, or ignored by this CA): its state and the node group or predicate that stops it.',
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['nodes', 'provisioningRequests', 'podTemplates'],
    messages: {
      waiting: 'ProvisioningRequest {ref} ({cls}) is not provisioned: {state}; casdoctor: {simulation}.',
      failed: 'ProvisioningRequest {ref} ({cls}) has failed: {state}; casdoctor: {simulation}.',
      ignored: 'ProvisioningRequest {ref} ({cls}) is not processed: {state}.',
    },
    upstream:
      'cluster-autoscaler pkg/processors/provreq/processor.go, pkg/provisioningrequest/checkcapacity/provisioningclass.go, besteffortatomic/provisioning_class.go',
  },
  run(ctx) {
    const a = ctx.analysis;
    const list = gatheredList(a.raw, 'provisioningRequests') ?? [];
    for (const pr of list) {
      const state = provReqState(a, pr);
      if (state.phase === 'provisioned' || state.phase === 'booking-expired') continue;
      const ref = provReqRef(pr);
      const subject = { kind: 'ProvisioningRequest', name: state.name, namespace: state.namespace };
      const evidence: Evidence[] = [];
      for (const c of Object.values(state.conditions)) {
        evidence.push({
          source: `ProvisioningRequest ${ref} status.conditions`,
          observed: `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}${c.lastTransitionTime ? ` since ${c.lastTransitionTime}` : ''}`,
        });
      }
      const ignored = state.phase === 'ca-disabled' || state.phase === 'unsupported-class' || state.phase === 'missing-templates';
      if (ignored) {
        ctx.report({
          messageId: 'ignored',
          data: { ref, cls: state.className || '<none>', state: state.summary },
          subject,
          severity: 'error',
          ...(state.reason ? { caReason: state.reason } : {}),
          evidence,
          remediation: remediationFor(state.phase, state.missingTemplates, state.namespace),
        });
        continue;
      }
      const sim = provReqSimulation(a, pr);
      for (const ps of sim.existing.podSets) {
        evidence.push({
          source: `casdoctor: PodSet ${ps.podSet} (PodTemplate ${ps.template})`,
          observed: `${ps.placedOnNodes} of ${ps.count} pods fit existing nodes${Object.keys(ps.nodeReasons).length ? `; nodes rejecting: ${Object.entries(ps.nodeReasons).map(([r, n]) => `${n} ${r}`).join(', ')}` : ''}`,
        });
      }
      for (const g of sim.groups) {
        evidence.push({
          source: `casdoctor: node group ${g.group}`,
          observed: g.fits
            ? `takes all remaining pods with ${g.nodesNeeded} new node(s) (room for ${g.headroom})`
            : `${g.reason ?? 'does not fit'}${g.detail ? ` (${g.detail})` : ''}`,
        });
      }
      const notes = [...state.notes, ...sim.caveats.filter((c) => c !== AWS_NOT_ATOMIC || state.classKind === 'best-effort-atomic')];
      for (const n of notes) evidence.push({ source: 'casdoctor', observed: n });
      ctx.report({
        messageId: state.phase === 'failed' ? 'failed' : 'waiting',
        data: { ref, cls: state.className, state: state.summary, simulation: sim.reason },
        subject,
        ...(state.reason ? { caReason: state.reason } : {}),
        evidence,
        remediation:
          state.phase === 'failed'
            ? `A failed ProvisioningRequest is final: fix the cause, then create a new one (spec is immutable), e.g.\n  ${shellCommand(['kubectl', 'delete', 'provisioningrequest', '-n', state.namespace, state.name])}`
            : state.classKind === 'check-capacity'
              ? 'check-capacity only looks at existing nodes: free capacity, add nodes another way, or use the best-effort-atomic-scale-up class so CA scales up.'
              : "Make one node group able to take every pod: raise its max size, or fix the predicate named above on the group's template.",
      });
    }
  },
});

function remediationFor(phase: string, missing: string[], ns: string): string {
  if (phase === 'ca-disabled') return "Add `--enable-provisioning-requests=true` to CA's arguments (CA 1.30+), with RBAC on provisioningrequests, provisioningrequests/status and podtemplates.";
  if (phase === 'missing-templates') return `Create the PodTemplate(s) ${missing.join(', ')} in namespace ${ns} (kind: PodTemplate, apiVersion: v1, with .template.spec).`;
  return 'Use provisioningClassName check-capacity.autoscaling.x-k8s.io or best-effort-atomic-scale-up.autoscaling.x-k8s.io, and make parameters.processorInstance match --check-capacity-processor-instance (or leave both unset).';
}
