import { shellCommand } from '../model/shell.js';
import { SAFE_TO_EVICT_LOCAL_VOLUMES } from '../simulate/drainability/pod-util.js';
import { defineCheck } from './define-check.js';
import { blockerRole, blockersWithReason, templateHint } from './lib/scale-down.js';
import { quoted, yamlSnippet } from './lib/snippets.js';
import { podRef, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-local-storage',
    title: 'Pod with local storage blocks scale-down',
    summary: 'A pod with a hostPath or disk-backed emptyDir not named in safe-to-evict-local-volumes blocks its node (LocalStorageRequested).',
    severity: 'warning',
    commands: ['scale-down-blockers'],
    requires: ['pods', 'nodes', 'autoScalingGroups'],
    messages: {
      local:
        'Pod {pod} on node {node} has local volume(s) {volumes}: CA will not remove the node while --skip-nodes-with-local-storage=true (LocalStorageRequested).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/localstorage/rule.go, utils/drain/drain.go HasBlockingLocalStorage',
  },
  run(ctx) {
    for (const { node, blocker } of blockersWithReason(ctx.analysis, 'LocalStorageRequested')) {
      const pod = blocker.pod;
      const vols = blocker.localVolumes ?? [];
      const existing = pod.metadata.annotations?.[SAFE_TO_EVICT_LOCAL_VOLUMES];
      const value = [...new Set([...(existing ? existing.split(',') : []), ...vols])].join(',');
      const kinds = (pod.spec.volumes ?? [])
        .filter((v) => vols.includes(v.name))
        .map((v) => `${v.name} (${v.hostPath ? `hostPath ${v.hostPath.path}` : 'emptyDir'})`);
      ctx.report({
        messageId: 'local',
        data: { pod: podRef(pod), node: node.name, volumes: vols.join(', ') },
        subject: podSubject(pod),
        ...(node.group ? { nodeGroup: node.group.name } : {}),
        caReason: 'LocalStorageRequested',
        evidence: [
          { source: `Pod ${podRef(pod)} spec.volumes`, observed: kinds.join(', ') },
          {
            source: `Pod ${podRef(pod)} annotation ${SAFE_TO_EVICT_LOCAL_VOLUMES}`,
            observed: existing === undefined ? '<none>' : JSON.stringify(existing),
            expected: `a list naming ${vols.join(', ')}`,
          },
          { source: `CA on node ${node.name}`, observed: `${blocker.message}; ${blockerRole(blocker)}` },
        ],
        remediation: [
          `If the data in ${vols.join(', ')} may be lost when the pod moves, name the volumes in ${templateHint(ctx.analysis, pod)}:`,
          yamlSnippet({ [SAFE_TO_EVICT_LOCAL_VOLUMES]: quoted(value) }, 2),
          `(exact names, comma-separated, no spaces: "a, b" names " b"). For the running pod only:`,
          `  ${shellCommand(['kubectl', 'annotate', 'pod', '-n', pod.metadata.namespace ?? 'default', pod.metadata.name ?? '', '--overwrite', `${SAFE_TO_EVICT_LOCAL_VOLUMES}=${value}`])}`,
          'An emptyDir with medium: Memory does not block. Cluster-wide: --skip-nodes-with-local-storage=false.',
        ].join('\n'),
      });
    }
  },
});
