import { formatDurationShort } from '../model/duration.js';
import { shellCommand } from '../model/shell.js';
import { type CaObjectEvent, caObjectEvents, PRIORITY_CONFIGMAP_NAME } from '../simulate/ca-events.js';
import { defineCheck } from './define-check.js';

export default defineCheck({
  meta: {
    id: 'ca-priority-configmap-invalid',
    title: "CA's events: the priority expander's ConfigMap is rejected or matches no node group",
    summary:
      "CA's own events say its cluster-autoscaler-priority-expander ConfigMap is unusable or matches no node group (when casdoctor cannot read the ConfigMap).",
    severity: 'warning',
    commands: ['why-pending'],
    requires: ['events'],
    messages: {
      invalid: 'ConfigMap {cm}: CA rejected the priority configuration {age} ago ("{text}"), so the priority expander filters nothing.',
      notMatchedGroup:
        'Node group {group} matches no regex in ConfigMap {cm}: CA logged {age} ago that the group "won\'t be used" while another group matches.',
      noGroupMatched:
        'ConfigMap {cm}: no regex matched any node group CA could scale ({age} ago), so the priority expander filtered nothing.',
    },
    upstream: 'cluster-autoscaler expander/priority/priority.go (reloadConfigMap, BestOptions)',
  },
  run(ctx) {
    const asgWord = ctx.analysis.provider.words.groupShort;
    const a = ctx.analysis;
    const ns = a.ca.flags.namespace.value;
    const cm = `${ns}/${PRIORITY_CONFIGMAP_NAME}`;
    const subject = { kind: 'ConfigMap', name: PRIORITY_CONFIGMAP_NAME, namespace: ns };
    const age = (ev: CaObjectEvent) => (ev.time ? formatDurationShort(Math.max(0, a.now.getTime() - ev.time.getTime())) : 'some time');
    const describe = shellCommand(['kubectl', '-n', ns, 'get', 'configmap', PRIORITY_CONFIGMAP_NAME, '-o', 'yaml']);
    // newest first; one finding per kind (and per node group), from the newest event of that kind
    const events = caObjectEvents(a.raw.events).filter(
      (ev) =>
        ev.object.kind === 'ConfigMap' &&
        ev.object.name === PRIORITY_CONFIGMAP_NAME &&
        (ev.object.namespace ?? ns) === ns &&
        ev.reason.startsWith('PriorityConfigMap'),
    );
    const evidence = (ev: CaObjectEvent) => [
      { source: `CA event ${ev.reason} on ConfigMap ${cm}`, observed: `${ev.message} (x${ev.count}, ${age(ev)} ago)` },
    ];
    // With the ConfigMap in the snapshot, priority-expander-config-invalid judges its content; this check carries CA's
    // own word for the case casdoctor cannot read it (RBAC, another namespace in the dump, a dump without ConfigMaps).
    const readable = a.raw.configMaps.some(
      (c) => c.metadata.name === PRIORITY_CONFIGMAP_NAME && (c.metadata.namespace ?? 'default') === ns,
    );
    if (readable) return;
    const invalid = events.find((ev) => ev.reason === 'PriorityConfigMapInvalid');
    if (invalid) {
      ctx.report({
        messageId: 'invalid',
        data: { cm, age: age(invalid), text: invalid.message },
        subject,
        caReason: 'PriorityConfigMapInvalid',
        evidence: evidence(invalid),
        remediation: `Fix the "priorities" key: YAML of integer priorities to lists of Go regexes, e.g.\n  priorities: |-\n    50:\n      - .*spot.*\n    10:\n      - .*\nThen check it:\n  ${describe}`,
      });
    }
    const seenGroups = new Set<string>();
    for (const ev of events) {
      if (ev.reason !== 'PriorityConfigMapNotMatchedGroup' || !ev.nodeGroup || seenGroups.has(ev.nodeGroup)) continue;
      seenGroups.add(ev.nodeGroup);
    }
    for (const group of [...seenGroups].sort()) {
      const ev = events.find((e) => e.reason === 'PriorityConfigMapNotMatchedGroup' && e.nodeGroup === group)!;
      ctx.report({
        messageId: 'notMatchedGroup',
        data: { group, cm, age: age(ev) },
        subject,
        nodeGroup: group,
        caReason: 'PriorityConfigMapNotMatchedGroup',
        evidence: evidence(ev),
        remediation: `Add a regex matching ${group} under the priority it should have (CA matches regexes against the ${asgWord} name, unanchored), or accept that CA only uses it when no listed group can take the pods:\n  ${describe}`,
      });
    }
    const none = events.find((ev) => ev.reason === 'PriorityConfigMapNoGroupMatched');
    if (none) {
      ctx.report({
        messageId: 'noGroupMatched',
        data: { cm, age: age(none) },
        subject,
        caReason: 'PriorityConfigMapNoGroupMatched',
        evidence: evidence(none),
        remediation: `The regexes name no ${asgWord} CA could scale for those pods: compare them with the ${asgWord} names (CA matches the full ${asgWord} name with an unanchored Go regex):\n  ${describe}`,
      });
    }
  },
});
