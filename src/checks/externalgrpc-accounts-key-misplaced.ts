import { defineCheck } from './define-check.js';
import { configSource, grpcFindings, grpcGate, listValue, PROVIDER_REPO } from './lib/externalgrpc.js';

/** "ConfigMap ns/name" -> a ConfigMap subject; "file /path …" -> a File subject. */
function configSubject(source: string): { kind: string; name: string; namespace?: string } {
  const cm = /^ConfigMap ([^/\s]+)\/(\S+)/.exec(source);
  if (cm) return { kind: 'ConfigMap', name: cm[2], namespace: cm[1] };
  return { kind: 'File', name: source.replace(/^file /, '').split(' (')[0] };
}

// G9: provider/provier.go reads cloudProviderOption.accounts.<provider>.<account>; the README's sample omits `accounts`.
export default defineCheck({
  meta: {
    id: 'externalgrpc-accounts-key-misplaced',
    title: "Cloud accounts under the README's layout, which the provider never reads",
    summary:
      "The externalgrpc provider's config puts accounts at cloudProviderOption.<provider> (as its README shows) but the code reads cloudProviderOption.accounts: every create fails.",
    severity: 'error',
    commands: ['why-pending', 'asg-audit'],
    requires: [],
    providers: ['externalgrpc'],
    messages: {
      legacy:
        '{source} has cloud accounts under cloudProviderOption.{providers} (the README\'s layout) but the provider reads cloudProviderOption.accounts: {effect}.',
    },
    upstream: `${PROVIDER_REPO} provider/provier.go:14-17 (yaml:"accounts"), l.54-59; README.md 配置文件准备; nodegroup-config.yaml`,
  },
  run(ctx) {
    if (!grpcGate(ctx)) return;
    const a = ctx.analysis;
    for (const f of grpcFindings(a, 'G9')) {
      const providers = f.values.legacyProviders as string[];
      const onlyLegacy = (f.values.accounts as string[]).length === 0;
      ctx.report({
        messageId: 'legacy',
        data: {
          source: f.source ?? configSource(a),
          providers: providers.join(', cloudProviderOption.'),
          effect: onlyLegacy ? 'it finds no account, so every instance create fails ("missing cloudProviderOption config") and CA only sees the scale-up time out' : `those entries are ignored; only ${listValue(f.values.accounts)} are used`,
        },
        subject: configSubject(f.source ?? configSource(a)),
        evidence: [{ source: configSource(a), observed: `cloudProviderOption.${providers.join(', cloudProviderOption.')}`, expected: `cloudProviderOption.accounts.${providers[0] ?? '<provider>'}.<account>` }],
        remediation: `Nest the accounts one level deeper:\n  cloudProviderOption:\n    accounts:\n      ${providers[0] ?? 'tencentcloud'}:\n        <account>:\n          secretId: ...\n          secretKey: ...\n    instanceParameter: ...\nand make sure each providerIdTemplate names that <account> (externalgrpc://${providers[0] ?? 'tencentcloud'}/<account>/<region>/{{InstanceID}}).`,
      });
    }
  },
});
