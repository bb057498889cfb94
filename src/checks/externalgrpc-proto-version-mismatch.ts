import { shellCommand } from '../model/shell.js';
import type { Evidence } from '../model/findings.js';
import { defineCheck } from './define-check.js';
import { dependsOnProviderProto, optionsIncompatibility, protoTemplateIncompatibility } from '../providers/externalgrpc/findings.js';
import { grpcFindings, grpcGate, grpcGroupSubject, grpcInput, listValue, PROVIDER_REPO } from './lib/externalgrpc.js';

// G1, G2 and G11 of the field notes (4a): CA's externalgrpc client and this provider's proto disagree by CA minor.
export default defineCheck({
  meta: {
    id: 'externalgrpc-proto-version-mismatch',
    title: "CA's version cannot read this externalgrpc provider's answers",
    summary:
      "CA's externalgrpc client of this minor and the provider's pre-1.35 gRPC schema disagree: no scratch templates (1.35+), a nil-pointer panic (1.29-1.34) or per-group timers of 0.",
    severity: 'error',
    commands: ['why-pending', 'scale-down-blockers', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      templateNil:
        'CA {caVersion} reads only nodeBytes from NodeGroupTemplateNodeInfo, but the provider ({image}) is built on the pre-1.35 proto and fills only nodeInfo: groups {groups} get no template while they have no Ready node.',
      panic:
        'CA {caVersion} dereferences MaxNodeProvisionTime in the GetOptions answer for node group {group}, which sets autoscalingOptions; the provider ({image}) never sets that field, so CA panics with a nil-pointer dereference.',
      durationsZero: 'CA {caVersion} gets {options} = 0 for node group {group}: {why}.',
      provisionTimeZero:
        'CA {caVersion} gets MaxNodeProvisionTime = 0 for node groups {groups}: its externalgrpc client does not copy the field, so a scale-up times out at the next loop instead of after {flag}.',
      startupTimeZero:
        'CA {caVersion} uses MaxNodeStartupTime = 0 for every externalgrpc node group (the proto has no such field; --max-node-startup-time {flag} is ignored): a registered node that is not Ready yet counts as unready at once.',
    },
    upstream:
      'kubernetes/autoscaler cluster-autoscaler/cloudprovider/externalgrpc/externalgrpc_node_group.go (TemplateNodeInfo 1.35.0:230-244, GetOptions 1.27-1.35); ' +
      `${PROVIDER_REPO} go.mod:19, protos/externalgrpc.proto:336-339, wrapper/wrapper.go:319-356`,
  },
  run(ctx) {
    if (!grpcGate(ctx, { caVersion: true })) return;
    const a = ctx.analysis;
    const input = grpcInput(a);
    const caVersion = a.ca.version.version ?? `1.${a.ca.version.minor}`;
    const image = input.providerImage ?? 'image unknown';
    // not 1.27-1.28: they read MaxNodeProvisionTime as 0 from this provider (1.28.4 externalgrpc_node_group.go:276-281)
    const pin = `pin CA to a version that reads this provider's pre-1.35 proto: CA 1.29-1.34 with no autoscalingOptions in any group, or CA 1.26 or older (not 1.27-1.28: they read every group's provision time as 0 and delete each new instance about one loop after it is listed); or rebuild ${PROVIDER_REPO} against the proto of your CA version (protos/externalgrpc.proto from the CA tag) before upgrading CA`;
    let all = grpcFindings(a, 'G1', 'G2', 'G11');
    if (input.era === 'unknown') {
      // An image that is not the provider's own build (a fork, a mirror under another name): what CA can read of its
      // answers depends on the proto it was built with, which the image does not say. Report only what holds either way.
      all = all.filter((f) => !dependsOnProviderProto(f));
      const assumed = { ...input, era: 'pre-1.35' as const };
      const open = [...protoTemplateIncompatibility(assumed), ...optionsIncompatibility(assumed)].filter(dependsOnProviderProto);
      if (open.length > 0) {
        const groups = [...new Set(open.flatMap((f) => (f.id === 'G1' ? (f.values.groups as string[]) : [f.group ?? ''])))];
        const effect = open.some((f) => f.id === 'G1')
          ? 'gets no template for groups without a Ready node'
          : open.some((f) => f.kind === 'panic')
            ? 'panics on GetOptions'
            : 'reads their scale-down timers as 0';
        const unknown = input.providerImage
          ? `the provider's image ${input.providerImage} is not ${PROVIDER_REPO}'s own build, so the gRPC proto it was built with is unknown`
          : `the provider's Deployment is not in the input, so the gRPC proto its image was built with is unknown (add ${shellCommand(['kubectl', 'get', 'deployments', '-A', '-o', 'json'])} to the dump)`;
        ctx.skip(
          'not-provided',
          `${unknown}: if it is the pre-1.35 proto, CA ${caVersion} ${effect} (node groups ${groups.join(', ')}); the k8s.io/autoscaler/cluster-autoscaler version in the go.mod it was built from tells (before v1.35.0: the pre-1.35 proto)`,
        );
      }
    }
    // CA 1.27-1.28 zero the provision time of every group alike: one finding names them all
    const provisionZero = all.filter((f) => f.kind === 'provision-time-zero');
    const findings = [...all.filter((f) => f.kind !== 'provision-time-zero'), ...provisionZero.slice(0, 1)];
    for (const f of findings) {
      const evidence: Evidence[] = [
        { source: `CA Deployment ${a.ca.deployment?.namespace ?? ''}/${a.ca.deployment?.name ?? ''}`, observed: `image ${a.ca.version.image ?? caVersion}` },
        { source: 'provider Deployment', observed: `image ${image} (proto era ${input.era})` },
      ];
      if (f.id === 'G1') {
        ctx.report({
          messageId: 'templateNil',
          data: { caVersion, image, groups: listValue(f.values.groups) },
          subject: { kind: 'Deployment', name: a.ca.deployment?.name ?? 'cluster-autoscaler', namespace: a.ca.deployment?.namespace ?? 'kube-system' },
          evidence,
          remediation: `CA crashes on every loop while such a group has no Ready node (its template sanitizer dereferences the nil template; externalgrpc-ca-cannot-run), and again at a scale-up timeout. Until the provider answers nodeBytes, ${pin}.`,
        });
      } else if (f.id === 'G2' && f.kind === 'panic') {
        ctx.report({
          messageId: 'panic',
          data: { caVersion, group: f.group ?? '', image },
          subject: grpcGroupSubject(f.group ?? ''),
          nodeGroup: f.group ?? '',
          evidence: [...evidence, { source: `node group ${f.group ?? ''} autoscalingOptions`, observed: `keys ${listValue(f.values.optionsPresent)}` }],
          remediation: `Either remove autoscalingOptions from the group (the provider then echoes CA's defaults, which carry the field) or run CA 1.26 or older (not 1.27-1.28: they read every group's provision time as 0). CA restarts in a loop while it panics (${shellCommand(['kubectl', '-n', a.ca.deployment?.namespace ?? 'kube-system', 'logs', `deploy/${a.ca.deployment?.name ?? 'cluster-autoscaler'}`, '--previous'])} shows "invalid memory address or nil pointer dereference").`,
        });
      } else if (f.id === 'G2') {
        const options = Object.keys(f.values).map((k) => k.replace(/Ms$/, ''));
        const flag = `${Math.round(input.caDefaults.maxNodeProvisionTimeMs / 60_000)}m`;
        ctx.report({
          messageId: f.kind === 'provision-time-zero' ? 'provisionTimeZero' : 'durationsZero',
          data: { caVersion, group: f.group ?? '', groups: provisionZero.map((z) => z.group ?? '').join(', '), options: options.join(', '), why: f.message.split(': ').slice(1).join(': '), flag },
          ...(f.kind === 'provision-time-zero'
            ? { subject: { kind: 'Deployment', name: a.ca.deployment?.name ?? 'cluster-autoscaler', namespace: a.ca.deployment?.namespace ?? 'kube-system' } }
            : { subject: grpcGroupSubject(f.group ?? ''), nodeGroup: f.group ?? '' }),
          severity: 'warning',
          evidence,
          remediation:
            f.kind === 'provision-time-zero'
              ? `CA gives up on every new node of the group at once: ScaleUpTimedOut right after the scale-up, the group backed off, and every instance not registered yet is long-unregistered, so CA deletes it about one loop after it is listed (static_autoscaler.go removeOldUnregisteredNodes; the provider marks it PendingDeletion and runs before_delete_hook, and a VM whose hook fails stays running). Upgrade CA to 1.29-1.34 and remove autoscalingOptions from every group (the provider then echoes CA's defaults, field 5 included; set the thresholds with CA's flags), or stay on CA 1.26 or older, which has no per-group provision time.`
              : `A node of the group is removable the moment it is unneeded or unready, and scale-ups time out at once. ${pin[0].toUpperCase()}${pin.slice(1)}.`,
        });
      } else {
        ctx.report({
          messageId: 'startupTimeZero',
          data: { caVersion, flag: `${Math.round(input.caDefaults.maxNodeStartupTimeMs / 60_000)}m` },
          subject: { kind: 'Deployment', name: a.ca.deployment?.name ?? 'cluster-autoscaler', namespace: a.ca.deployment?.namespace ?? 'kube-system' },
          severity: 'warning',
          evidence,
          remediation: 'Nothing in the provider can set it; expect node groups reported unhealthy while new nodes boot. Keep CA below 1.35 with this provider.',
        });
      }
    }
  },
});
