import { shellCommand } from '../model/shell.js';
import { defineCheck } from './define-check.js';
import { grpcFindings, grpcGate, providerDeploymentRef, providerNamespace, PROVIDER_REPO } from './lib/externalgrpc.js';
import { findProviderDeployment } from '../providers/externalgrpc/deployment.js';

// G10: loadNodeGroups reads the nodegroup-status ConfigMap first and the file only when it is absent or empty.
export default defineCheck({
  meta: {
    id: 'externalgrpc-config-file-ignored',
    title: "Edits to nodegroup-config.yaml ignored while the provider's ConfigMap exists",
    summary:
      "The externalgrpc provider's nodegroup-config.yaml differs from its nodegroup-status ConfigMap, which it loads in preference: the file's edits have no effect.",
    severity: 'warning',
    commands: ['why-pending', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      ignored: 'The provider loads {source}, not its start-up file, which differs ({differences}): the file\'s edits have no effect.',
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:1377-1400 (loadNodeGroups: "从config map中获取失败，从文件中获取")`,
  },
  run(ctx) {
    if (!grpcGate(ctx, { file: true })) return;
    const a = ctx.analysis;
    const dep = findProviderDeployment(a.raw.deployments);
    const ns = providerNamespace(a);
    // the Deployment's own namespace for scaling it; its --namespace flag (ns) only says where its ConfigMap is
    const { namespace: depNs, name: depName } = providerDeploymentRef(a);
    for (const f of grpcFindings(a, 'G10')) {
      const diffs = f.values.differences as string[];
      ctx.report({
        messageId: 'ignored',
        data: { source: f.source ?? '', differences: diffs.join('; ') },
        subject: { kind: 'ConfigMap', name: dep?.statusConfigMap ?? 'nodegroup-status', namespace: ns },
        evidence: [
          { source: f.source ?? '', observed: `loaded by the provider${typeof f.values.lastUpdated === 'string' ? `, last written ${f.values.lastUpdated}` : ''}` },
          { source: `file ${dep?.configFile ?? 'nodegroup-config.yaml'}`, observed: diffs.join('; '), expected: 'the same groups and sizes as the ConfigMap' },
        ],
        remediation: `Apply the change where the provider reads it. Stop the provider so it cannot rewrite the ConfigMap, edit NodeGroupsConfig (keep its instances[] records), start it again:\n  ${shellCommand(['kubectl', '-n', depNs, 'scale', `deploy/${depName}`, '--replicas=0'])}\n  ${shellCommand(['kubectl', '-n', ns, 'edit', 'configmap', dep?.statusConfigMap ?? 'nodegroup-status'])}\n  ${shellCommand(['kubectl', '-n', depNs, 'scale', `deploy/${depName}`, '--replicas=1'])}\nThen bring the file in line, so a fresh install starts from the same config. Deleting the ConfigMap instead loses every instance record.`,
      });
    }
  },
});
