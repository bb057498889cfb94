import type { LaunchTemplateVersion } from '../model/aws.js';
import { shellCommand } from '../model/shell.js';
import {
  auditedAsgGroups,
  caLaunchTemplateVersion,
  launchTemplateSpecOf,
  versionsOf,
} from '../providers/aws/asg-audit.js';
import { defineCheck } from './define-check.js';
import { groupSubject, listNames } from '../providers/aws/asg-audit-checks.js';
import { awsStructureArg } from './lib/support.js';

function detail(v: LaunchTemplateVersion | undefined, fallbackType?: string): string {
  if (!v)
    return fallbackType ? `${fallbackType}, version not in the snapshot` : 'version not in the snapshot';
  const d = v.LaunchTemplateData ?? {};
  return [
    d.InstanceType ?? (d.InstanceRequirements ? 'instance requirements' : 'no instance type'),
    d.ImageId ?? 'no AMI',
  ].join(', ');
}

export default defineCheck({
  meta: {
    id: 'launch-template-drift',
    title: 'Running instances come from another launch template version than the one CA reads',
    summary:
      "The ASG's launch template version ($Latest, $Default or pinned) that CA reads differs from the versions its instances were launched from: instance type or AMI changed since.",
    severity: 'warning',
    commands: ['asg-audit'],
    requires: ['autoScalingGroups', 'launchTemplateVersions'],
    providers: ['aws'],
    messages: {
      drift:
        'ASG {group} points at launch template {lt} {spec} (CA reads v{version}: {caDetail}); {count} running instance(s) were launched from {old} ({oldDetail}): {changes}.',
      latestNotDefault:
        'ASG {group} uses launch template {lt} $Latest (v{latest}) while its default version is v{default}: CA and new instances use v{latest}.',
      launchConfiguration:
        'ASG {group} uses launch configuration {lc} ({caType}) but {count} running instance(s) come from {old}.',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_wrapper.go getInstanceTypeByLaunchTemplate; auto_scaling_groups.go buildLaunchTemplateFromSpec; kubernetes/autoscaler#789, #1728',
  },
  run(ctx) {
    const a = ctx.analysis;
    for (const g of auditedAsgGroups(a)) {
      const instances = (g.asg.Instances ?? []).filter(
        (i) => i.LifecycleState !== 'Terminating' && i.LifecycleState !== 'Terminated',
      );
      if (g.launchConfigurationName) {
        const old = instances.filter(
          (i) => i.LaunchConfigurationName && i.LaunchConfigurationName !== g.launchConfigurationName,
        );
        if (old.length === 0) continue;
        const lc = a.raw.launchConfigurations.find(
          (l) => l.LaunchConfigurationName === g.launchConfigurationName,
        );
        ctx.report({
          messageId: 'launchConfiguration',
          severity: old.some((i) => lc?.InstanceType && i.InstanceType !== lc.InstanceType)
            ? 'warning'
            : 'info',
          data: {
            group: g.name,
            lc: g.launchConfigurationName,
            caType: lc?.InstanceType ?? 'type unknown',
            count: old.length,
            old: listNames([...new Set(old.map((i) => i.LaunchConfigurationName!))]),
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: old
            .slice(0, 5)
            .map((i) => ({
              source: `instance ${i.InstanceId}`,
              observed: `${i.LaunchConfigurationName} (${i.InstanceType})`,
            })),
          remediation: `Replace the old instances (${shellCommand(['aws', 'autoscaling', 'start-instance-refresh', '--auto-scaling-group-name', g.name])}) so the nodes, and the template CA copies from them, match the launch configuration.`,
        });
        continue;
      }
      const spec = launchTemplateSpecOf(g);
      if (!spec) continue;
      const caVersion = caLaunchTemplateVersion(a, g);
      if (!caVersion) continue;
      const lt = spec.LaunchTemplateName ?? spec.LaunchTemplateId ?? '';
      const all = versionsOf(a, spec);
      const specVersion = spec.Version ?? '$Default';
      const defaultVersion = all.find((v) => v.DefaultVersion);
      if (
        specVersion === '$Latest' &&
        defaultVersion &&
        defaultVersion.VersionNumber !== caVersion.VersionNumber
      ) {
        ctx.report({
          messageId: 'latestNotDefault',
          severity: 'info',
          data: {
            group: g.name,
            lt,
            latest: caVersion.VersionNumber ?? '?',
            default: defaultVersion.VersionNumber ?? '?',
          },
          subject: groupSubject(g),
          nodeGroup: g.name,
          evidence: [
            {
              source: `launch template ${lt}`,
              observed: `v${caVersion.VersionNumber}: ${detail(caVersion)}; default v${defaultVersion.VersionNumber}: ${detail(defaultVersion)}`,
            },
          ],
          remediation: `Point the ASG at $Default or a pinned version if v${caVersion.VersionNumber} is not meant for production: ${shellCommand(['aws', 'autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', g.name, '--launch-template', awsStructureArg({ LaunchTemplateId: caVersion.LaunchTemplateId ?? '', Version: '$Default' })])}`,
        });
      }
      const want = String(caVersion.VersionNumber);
      const byVersion = new Map<string, typeof instances>();
      for (const i of instances) {
        const v = i.LaunchTemplate?.Version;
        if (!v || v === want || v.startsWith('$')) continue;
        byVersion.set(v, [...(byVersion.get(v) ?? []), i]);
      }
      if (byVersion.size === 0) continue;
      const caData = caVersion.LaunchTemplateData ?? {};
      const changes: string[] = [];
      let typeChanged = false;
      for (const [v, list] of byVersion) {
        const old = all.find((x) => String(x.VersionNumber) === v);
        const oldTypes = [...new Set(list.map((i) => i.InstanceType).filter(Boolean))];
        const oldType = old?.LaunchTemplateData?.InstanceType ?? (g.mixedInstances ? undefined : oldTypes[0]);
        if (caData.InstanceType && oldType && oldType !== caData.InstanceType) {
          changes.push(`instance type ${oldType} → ${caData.InstanceType} (v${v} → v${want})`);
          typeChanged = true;
        }
        const oldAmi = old?.LaunchTemplateData?.ImageId;
        if (oldAmi && caData.ImageId && oldAmi !== caData.ImageId)
          changes.push(`AMI ${oldAmi} → ${caData.ImageId} (v${v} → v${want})`);
      }
      const olds = [...byVersion.keys()].sort((x, y) => Number(x) - Number(y));
      const oldVersion = all.find((x) => String(x.VersionNumber) === olds[0]);
      const count = [...byVersion.values()].reduce((n, l) => n + l.length, 0);
      ctx.report({
        messageId: 'drift',
        severity: typeChanged ? 'warning' : 'info',
        data: {
          group: g.name,
          lt,
          spec: specVersion,
          version: want,
          caDetail: detail(caVersion),
          count,
          old: olds.map((v) => `v${v}`).join(', '),
          oldDetail: detail(oldVersion, byVersion.get(olds[0])?.[0]?.InstanceType),
          changes:
            changes.length > 0 ? changes.join('; ') : 'no instance type or AMI change casdoctor can see',
        },
        subject: groupSubject(g),
        nodeGroup: g.name,
        evidence: [
          { source: `ASG ${g.name} LaunchTemplate`, observed: `${lt} ${specVersion} → v${want}` },
          ...[...byVersion].slice(0, 3).map(([v, list]) => ({
            source: `instances from v${v}`,
            observed: list.map((i) => `${i.InstanceId} ${i.InstanceType ?? ''}`.trim()).join(', '),
          })),
        ],
        remediation: typeChanged
          ? `CA copies its template from a running (old) node while new nodes get v${want}: roll the group so nodes match the template (${shellCommand(['aws', 'autoscaling', 'start-instance-refresh', '--auto-scaling-group-name', g.name])}), or pin the ASG to the version you mean.`
          : `Roll the group when convenient (${shellCommand(['aws', 'autoscaling', 'start-instance-refresh', '--auto-scaling-group-name', g.name])}) so running nodes match what CA and new launches use.`,
      });
    }
  },
});
