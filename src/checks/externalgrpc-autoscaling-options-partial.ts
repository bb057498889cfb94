import type { GrpcAutoscalingOptionKey, GrpcNodeGroupSpec } from '../model/externalgrpc.js';
import { describeSource, parseExternalGrpcConfig } from '../providers/externalgrpc/config.js';
import { externalGrpcConfigInputs } from '../providers/externalgrpc/deployment.js';
import { externalGrpcState } from '../providers/externalgrpc/groups.js';
import type { Analysis } from '../simulate/analysis.js';
import { defineCheck } from './define-check.js';
import { configSource, grpcFindings, grpcGate, grpcGroupSubject, listValue, PROVIDER_REPO } from './lib/externalgrpc.js';

const KEYS: GrpcAutoscalingOptionKey[] = ['scaleDownUtilizationThreshold', 'scaleDownGpuUtilizationThreshold', 'scaleDownUnneededTime', 'scaleDownUnreadyTime'];
const VALUE_OF: Record<GrpcAutoscalingOptionKey, keyof NonNullable<GrpcNodeGroupSpec['autoscalingOptions']>> = {
  scaleDownUtilizationThreshold: 'scaleDownUtilizationThreshold',
  scaleDownGpuUtilizationThreshold: 'scaleDownGpuUtilizationThreshold',
  scaleDownUnneededTime: 'scaleDownUnneededTimeMs',
  scaleDownUnreadyTime: 'scaleDownUnreadyTimeMs',
};

/**
 * Groups whose start-up file omitted options that the loaded ConfigMap now holds as 0: the provider wrote its Go
 * zero values into nodegroup-status (Yaml() writes every field), so the omission shows only in the file.
 */
function zeroedFromFile(a: Analysis): Array<{ group: string; missing: string[]; present: string[]; file: string }> {
  const cfg = externalGrpcState(a.providerContext).config;
  if (cfg.used?.kind !== 'configmap') return [];
  const file = externalGrpcConfigInputs(a.raw).find((i) => i.source.kind === 'file');
  if (!file) return [];
  const out: Array<{ group: string; missing: string[]; present: string[]; file: string }> = [];
  for (const fg of parseExternalGrpcConfig([file]).nodeGroups) {
    const fo = fg.autoscalingOptions;
    const loaded = cfg.nodeGroups.find((g) => g.id === fg.id)?.autoscalingOptions;
    if (!fo || !loaded || fo.present.length === KEYS.length) continue;
    const missing = KEYS.filter((k) => !fo.present.includes(k) && loaded[VALUE_OF[k]] === 0);
    if (missing.length) out.push({ group: fg.id, missing, present: fo.present, file: describeSource(file.source) });
  }
  return out;
}

// G4: the provider copies its autoscalingOptions struct as is; omitted keys are Go zero values, not CA's flags.
export default defineCheck({
  meta: {
    id: 'externalgrpc-autoscaling-options-partial',
    title: 'Partial autoscalingOptions zero the options left out',
    summary:
      "An externalgrpc node group sets only some autoscalingOptions: the provider sends 0 for the others instead of CA's flag values (threshold 0 = never underutilized).",
    severity: 'warning',
    commands: ['scale-down-blockers', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      partial: 'Node group {group} sets autoscalingOptions {present} but not {missing}: the provider sends 0 for {them}{consequence}.',
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:144-149, wrapper/wrapper.go:342-353`,
  },
  run(ctx) {
    if (!grpcGate(ctx)) return;
    const a = ctx.analysis;
    const fromFile = zeroedFromFile(a).filter((z) => !grpcFindings(a, 'G4').some((f) => f.group === z.group));
    const all = [
      ...grpcFindings(a, 'G4').map((f) => ({ group: f.group ?? '', missing: f.values.missing as string[], present: f.values.present as string[], source: configSource(a) })),
      ...fromFile.map((z) => ({ group: z.group, missing: z.missing, present: z.present, source: `${z.file} (${configSource(a)} holds them as 0)` })),
    ];
    for (const f of all) {
      const missing = f.missing;
      const consequence = [
        missing.includes('scaleDownUtilizationThreshold') ? ' (threshold 0: no node of the group is ever below it, so none is removed for low utilization)' : '',
        missing.some((k) => k.endsWith('Time')) ? ' (time 0: a node is removable the moment it is unneeded or unready)' : '',
      ].join('');
      const f2 = a.ca.flags;
      const full = {
        scaleDownUtilizationThreshold: f2.scaleDownUtilizationThreshold.value,
        scaleDownGpuUtilizationThreshold: f2.scaleDownGpuUtilizationThreshold.value,
        scaleDownUnneededTime: `${Math.round(f2.scaleDownUnneededTime.value / 60_000)}m`,
        scaleDownUnreadyTime: `${Math.round(f2.scaleDownUnreadyTime.value / 60_000)}m`,
      };
      ctx.report({
        messageId: 'partial',
        data: { group: f.group, present: listValue(f.present), missing: listValue(missing), them: missing.length === 1 ? 'it' : 'them', consequence },
        subject: grpcGroupSubject(f.group),
        nodeGroup: f.group,
        evidence: [{ source: `${f.source} nodeGroups[id=${f.group}].autoscalingOptions`, observed: `set: ${listValue(f.present)}`, expected: 'all four keys' }],
        remediation: `Write all four keys; for the ones you meant to leave at CA's flags, copy the flag values:\n  autoscalingOptions:\n${Object.entries(full)
          .map(([k, v]) => `    ${k}: ${typeof v === 'string' ? `"${v}"` : v}`)
          .join('\n')}\nThe provider loads its ConfigMap, not the file: apply the change where it reads it (see externalgrpc-config-file-ignored).`,
      });
    }
  },
});
