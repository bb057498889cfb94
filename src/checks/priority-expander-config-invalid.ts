import type { Evidence } from '../model/findings.js';
import { shellCommand } from '../model/shell.js';
import {
  auditPriorityRules,
  expanderChain,
  findPriorityConfigMap,
  misplacedPriorityConfigMaps,
  parsePriorityConfigMap,
  PRIORITY_CONFIGMAP_NAME,
  priorityExpanderEvents,
  usesPriorityExpander,
} from '../simulate/priority-expander.js';
import { defineCheck } from './define-check.js';
import { yamlSnippet } from './lib/snippets.js';
import { EVIDENCE_NAMES, listNames } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'priority-expander-config-invalid',
    title: 'Priority expander ConfigMap missing, invalid or not matching the node groups',
    summary:
      'CA runs --expander=priority but its ConfigMap is missing, fails to parse, has rules matching no node group, or leaves node groups unmatched.',
    severity: 'warning',
    commands: ['why-pending', 'asg-audit'],
    requires: ['deployments', 'configMaps', 'autoScalingGroups'],
    messages: {
      missing: 'CA runs --expander={chain} but ConfigMap {ns}/{name} does not exist: the priority expander filters nothing.',
      invalid: 'ConfigMap {ns}/{name} is rejected by CA: {message}',
      ruleMatchesNothing: 'ConfigMap {ns}/{name}: rule "{pattern}" (priority {priority}) matches no node group.',
      groupNotMatched: "Node group {group} matches no rule in {ns}/{name}: CA won't use it while a matched group fits.",
      belowMinusOne: 'Node group {group} only matches priority {priority} in {ns}/{name}: below -1, CA never keeps it.',
      unsupported: 'ConfigMap {ns}/{name}: rule "{pattern}" is valid RE2 that casdoctor cannot evaluate ({why}).',
    },
    upstream: 'cluster-autoscaler pkg/expander/priority/priority.go; pkg/expander/factory/chain.go',
  },
  run(ctx) {
    const asgWord = ctx.analysis.provider.words.groupShort;
    const a = ctx.analysis;
    if (!usesPriorityExpander(a.ca)) return;
    const ns = a.ca.flags.namespace.value || 'kube-system';
    const base = { ns, name: PRIORITY_CONFIGMAP_NAME };
    const cmSubject = { kind: 'ConfigMap', name: PRIORITY_CONFIGMAP_NAME, namespace: ns };
    const cm = findPriorityConfigMap(a.raw.configMaps, a.ca);
    if (!cm) {
      const elsewhere = misplacedPriorityConfigMaps(a.raw.configMaps, a.ca);
      // live, casdoctor asks for it by name: absent means it does not exist. In a dump, absent may mean not dumped.
      const gap = a.raw.gaps.find((g) => g.resource.includes(PRIORITY_CONFIGMAP_NAME));
      if (gap) {
        ctx.skip(gap.reason, `ConfigMap ${ns}/${PRIORITY_CONFIGMAP_NAME} could not be read: ${gap.detail}`);
        return;
      }
      const live = a.raw.sources.some((src) => src.startsWith('live'));
      if (!live && elsewhere.length === 0) {
        ctx.skip(
          'not-provided',
          `ConfigMap ${ns}/${PRIORITY_CONFIGMAP_NAME} is not in the input: add \`${shellCommand(['kubectl', 'get', 'configmap', '-n', ns, PRIORITY_CONFIGMAP_NAME, '-o', 'json'])}\` to the dump`,
        );
        return;
      }
      ctx.report({
        messageId: 'missing',
        data: { ...base, chain: expanderChain(a.ca).join(',') },
        subject: cmSubject,
        caReason: `Priority expander config map ${PRIORITY_CONFIGMAP_NAME} not found`,
        evidence: elsewhere.map((c) => ({
          source: `ConfigMap ${c.metadata.namespace ?? 'default'}/${PRIORITY_CONFIGMAP_NAME}`,
          observed: `exists in namespace ${c.metadata.namespace ?? 'default'}`,
          expected: `namespace ${ns} (CA's --namespace)`,
        })),
        remediation: `Create it in CA's namespace (\`${shellCommand(['kubectl', 'apply', '-n', ns, '-f', 'priority-expander.yaml'])}\`):\n${yamlSnippet({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PRIORITY_CONFIGMAP_NAME, namespace: ns }, data: { priorities: '50:\n  - .*spot.*\n10:\n  - .*\n' } }, 2)}`,
      });
      return;
    }
    const config = parsePriorityConfigMap(cm);
    if (!config.ok) {
      const evidence: Evidence[] = priorityExpanderEvents(a.raw.events, cm)
        .slice(0, 1)
        .map((e) => ({ source: `Event ${e.reason ?? ''} on ConfigMap ${ns}/${PRIORITY_CONFIGMAP_NAME}`, observed: e.message ?? '' }));
      ctx.report({
        messageId: 'invalid',
        data: { ...base, message: config.message },
        subject: cmSubject,
        severity: 'error',
        caReason: config.reason,
        evidence,
        remediation:
          `Key \`priorities\` holds YAML: integer keys, each a list of Go (RE2) regular expressions matched anywhere in the ${asgWord} name, e.g.\n  priorities: |-\n    50:\n      - .*spot.*\n    10:\n      - .*`,
      });
      return;
    }
    const groups = a.nodeGroups.filter((g) => g.discovered).map((g) => g.name);
    const audit = auditPriorityRules(config.rules, groups);
    for (const r of audit.rulesMatchingNothing) {
      ctx.report({
        messageId: 'ruleMatchesNothing',
        data: { ...base, pattern: r.pattern, priority: r.priority },
        subject: cmSubject,
        evidence: [{ source: 'node groups CA discovers', observed: listNames(groups, EVIDENCE_NAMES) || 'none' }],
        remediation: `Fix the expression or remove it. CA matches it anywhere in the ${asgWord} name (unanchored), case-sensitive.`,
      });
    }
    for (const g of audit.groupsMatchedByNothing) {
      ctx.report({
        messageId: 'groupNotMatched',
        data: { ...base, group: g },
        subject: { kind: 'AutoScalingGroup', name: g },
        nodeGroup: g,
        caReason: 'PriorityConfigMapNotMatchedGroup',
        remediation: 'Add a rule for it (e.g. a low-priority catch-all `1: [".*"]`), if CA should ever pick it.',
      });
    }
    for (const g of audit.groupsBelowMinusOne) {
      const prio = Math.max(...config.rules.filter((r) => r.regex?.test(g)).map((r) => r.priority));
      ctx.report({
        messageId: 'belowMinusOne',
        data: { ...base, group: g, priority: prio },
        subject: { kind: 'AutoScalingGroup', name: g },
        nodeGroup: g,
        remediation: 'Use priorities of -1 or more: priority.go starts its search at -1 and skips anything lower.',
      });
    }
    for (const r of audit.unsupportedRules) {
      ctx.report({
        messageId: 'unsupported',
        data: { ...base, pattern: r.pattern, why: r.unsupported ?? 'unsupported' },
        subject: cmSubject,
        severity: 'info',
      });
    }
  },
});
