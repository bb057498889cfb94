import { parseNodeGroupSpec } from '../simulate/ca-config.js';
import { collapseRepeatedPrefix } from './ca-config-invalid.js';
import { preflightOf } from '../simulate/preflight.js';
import { defineCheck } from './define-check.js';
import { caSubject } from '../providers/aws/asg-audit-checks.js';

export default defineCheck({
  meta: {
    id: 'discovery-spec-invalid',
    title: "CA's node group discovery is malformed or empty",
    summary:
      'A --node-group-auto-discovery or --nodes value CA rejects at start-up, or neither flag set: CA manages no node group.',
    severity: 'error',
    commands: ['asg-audit', 'preflight'],
    requires: [],
    providers: ['aws'],
    messages: {
      invalid: 'CA rejects {flag}: {error}.',
      placeholder:
        'CA\'s {flag} still holds the placeholder {placeholder}: CA looks for that tag literally and discovers no ASG.',
      none: 'CA has neither --node-group-auto-discovery nor --nodes: it manages no node group.',
    },
    upstream:
      'cluster-autoscaler cloudprovider/aws/aws_manager.go parseASGAutoDiscoverySpec; config/dynamic/node_group_spec.go SpecFromString',
  },
  run(ctx) {
    const ca = ctx.analysis.ca;
    if (!ca.found && ca.overrideArgs.length === 0) return;
    // preflight judges what the change ships: a CA Deployment among the manifests, or --ca-args, not the cluster's
    if (ctx.command === 'preflight' && preflightOf(ctx.analysis)?.caConfigSource === 'cluster') return;
    const subject = caSubject(ctx.analysis);
    const evidence = [
      { source: 'CA container args', observed: [...ca.deploymentArgs, ...ca.overrideArgs].join(' ') },
    ];
    // a copied example's "<YOUR CLUSTER NAME>" (or an unrendered "{{ … }}") is used literally by CA
    for (const s of ca.autoDiscovery.specs) {
      const placeholder = /<[^<>]*>|\{\{[^}]*\}\}/.exec(s.raw)?.[0];
      if (!placeholder) continue;
      ctx.report({
        messageId: 'placeholder',
        data: { flag: `--node-group-auto-discovery=${s.raw}`, placeholder },
        subject,
        evidence,
        remediation: `Put the cluster's name in place of ${placeholder}, e.g. --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster-name> with the name your ASGs are tagged with.`,
      });
    }
    // in preflight ca-config-invalid reports the rejected values; here they would be said twice
    if (ctx.command === 'preflight') {
      if (ca.flags.nodeGroupAutoDiscovery.value.length === 0 && ca.flags.nodes.value.length === 0 && ca.found)
        ctx.report({
          messageId: 'none',
          data: {},
          subject,
          evidence,
          remediation:
            'Add --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster-name> (and tag the ASGs), or one --nodes=<min>:<max>:<asg> per ASG.',
        });
      return;
    }
    for (const s of ca.autoDiscovery.specs) {
      if (!s.error) continue;
      ctx.report({
        messageId: 'invalid',
        data: { flag: `--node-group-auto-discovery=${s.raw}`, error: collapseRepeatedPrefix(s.error) },
        subject,
        evidence,
        remediation:
          'Use the AWS form asg:tag=<key>[=<value>][,<key>[=<value>]...], e.g. --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster-name>. CA exits at start-up with this error.',
      });
    }
    for (const raw of ca.flags.nodes.value) {
      const parsed = parseNodeGroupSpec(raw);
      if (!('error' in parsed)) continue;
      ctx.report({
        messageId: 'invalid',
        data: { flag: `--nodes=${raw}`, error: collapseRepeatedPrefix(parsed.error) },
        subject,
        evidence,
        remediation:
          'Use --nodes=<min>:<max>:<asg-name> with integers 0 <= min <= max. CA exits at start-up with this error.',
      });
    }
    const noDiscovery = ca.flags.nodeGroupAutoDiscovery.value.length === 0;
    const noNodes = ca.flags.nodes.value.length === 0;
    if (noDiscovery && noNodes) {
      ctx.report({
        messageId: 'none',
        data: {},
        subject,
        evidence,
        remediation:
          'Add --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster-name> (and tag the ASGs), or one --nodes=<min>:<max>:<asg> per ASG.',
      });
    }
  },
});
