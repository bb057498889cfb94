import { defineCheck } from './define-check.js';
import { grpcFindings, grpcGate, listValue, PROVIDER_REPO } from './lib/externalgrpc.js';

// G8: the provider writes cloudProviderOption (accounts with secretId/secretKey) into nodegroup-status every 5 s.
export default defineCheck({
  meta: {
    id: 'externalgrpc-credentials-in-configmap',
    title: 'Cloud credentials stored in a ConfigMap',
    summary:
      "The externalgrpc provider's config (nodegroup-status, or the ConfigMap holding nodegroup-config.yaml) holds cloud secretId/secretKey: anyone who may get ConfigMaps in the namespace can create and delete instances.",
    severity: 'warning',
    commands: ['asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      credentials: '{source} holds cloud credentials at {paths}: readable by anyone who may get ConfigMaps in that namespace.',
    },
    upstream: `${PROVIDER_REPO} nodegroup/node_group.go:1102-1124 (Yaml() writes CloudProviderOption), l.1181-1216 (WriteNodeGroupStatusToConfigMap)`,
  },
  run(ctx) {
    if (!grpcGate(ctx)) return;
    for (const f of grpcFindings(ctx.analysis, 'G8')) {
      const source = f.source ?? '';
      const cm = /ConfigMap ([^/\s]+)\/([^\s)]+)/.exec(source);
      ctx.report({
        messageId: 'credentials',
        // the key paths only: casdoctor scrubs the values before it keeps the text (scrubExternalGrpcCredentials)
        data: { source, paths: listValue(f.values.paths) },
        subject: { kind: 'ConfigMap', name: cm?.[2] ?? source, ...(cm ? { namespace: cm[1] } : {}) },
        evidence: [{ source, observed: `credential keys at ${listValue(f.values.paths)} (values not shown)`, expected: 'no secretId/secretKey in a ConfigMap' }],
        remediation: `The provider persists what it loaded, credentials included, so moving them needs a change to the provider: read accounts from a Secret (env or mounted file) and leave cloudProviderOption.accounts out of Yaml(). Meanwhile restrict get/list/watch on configmaps in ${cm?.[1] ?? 'the namespace'} to the provider and CA, give the Tencent Cloud key only the CVM permissions the provider needs, and rotate it (it has been readable since the ConfigMap was created).`,
      });
    }
  },
});
