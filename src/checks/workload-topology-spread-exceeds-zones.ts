import { ZONE_KEYS } from '../simulate/preflight.js';
import { defineCheck } from './define-check.js';
import { placements, workloadRef, workloadSubject, zonesOf } from './lib/preflight.js';

export default defineCheck({
  meta: {
    id: 'workload-topology-spread-exceeds-zones',
    title: 'Required zone spread over more zones than the node groups cover',
    summary:
      "A required (DoNotSchedule) zone topology spread that needs more zones than the workload's node groups cover, or than CA's templates represent.",
    severity: 'error',
    commands: ['preflight'],
    requires: ['autoScalingGroups'],
    messages: {
      minDomains:
        '{workload} spreads {replicas} replicas over {key} with minDomains {minDomains} and maxSkew {maxSkew}, but the node groups it fits cover only {zones}: only {capacity} can be placed, the rest stay Pending.',
      templateZones:
        "{workload} spreads {replicas} replicas over {key} (maxSkew {maxSkew}); its node groups launch into {zones}, but CA's templates represent only {templateZones}: when the spread needs a pod in another zone, CA's simulation puts it in {templateZones} and no scale-up happens.",
    },
    upstream:
      'kube-scheduler podtopologyspread (minDomains); cluster-autoscaler cloudprovider/aws/aws_manager.go getAsgTemplate (first AZ only)',
  },
  run(ctx) {
    for (const p of placements(ctx.analysis)) {
      if (p.caFits.length === 0) continue;
      const w = p.workload;
      const replicas = Math.max(w.replicas ?? 1, w.hpaMinReplicas ?? 0);
      const zones = zonesOf(p.caFits);
      const templateZones = [
        ...new Set(p.caFits.map((g) => g.g.templateZone).filter((z): z is string => !!z)),
      ].sort();
      for (const c of p.pod.spec.topologySpreadConstraints ?? []) {
        if (c.whenUnsatisfiable !== 'DoNotSchedule' || !ZONE_KEYS.includes(c.topologyKey)) continue;
        const maxSkew = c.maxSkew ?? 1;
        const base = {
          workload: workloadRef(w),
          replicas,
          key: c.topologyKey,
          maxSkew,
          zones: `${zones.length} zone(s) (${zones.join(', ')})`,
        };
        const evidence = [
          {
            source: 'pod template topologySpreadConstraints',
            observed: `${c.topologyKey} maxSkew ${maxSkew}${c.minDomains ? ` minDomains ${c.minDomains}` : ''} DoNotSchedule`,
          },
          {
            source: 'node groups that fit',
            observed: p.caFits
              .map((g) => `${g.g.group.name}: ${g.g.zones.join(', ')} (template ${g.g.templateZone ?? '?'})`)
              .join('; '),
          },
        ];
        if (c.minDomains !== undefined && c.minDomains > zones.length && replicas > zones.length * maxSkew) {
          ctx.report({
            messageId: 'minDomains',
            data: { ...base, minDomains: c.minDomains, capacity: `${zones.length * maxSkew} of them` },
            subject: workloadSubject(w),
            schedulerReason: "node(s) didn't match pod topology spread constraints",
            evidence,
            remediation: `Lower minDomains to ${zones.length} or less, add node groups in more zones, or use whenUnsatisfiable: ScheduleAnyway.`,
          });
        } else if (templateZones.length < zones.length && replicas > templateZones.length * maxSkew) {
          ctx.report({
            messageId: 'templateZones',
            data: { ...base, templateZones: templateZones.join(', ') },
            subject: workloadSubject(w),
            severity: 'warning',
            schedulerReason: "node(s) didn't match pod topology spread constraints",
            evidence,
            remediation:
              'Use one node group per zone (CA then has a template in every zone) with --balance-similar-node-groups, or relax the constraint to whenUnsatisfiable: ScheduleAnyway.',
          });
        }
      }
    }
  },
});
