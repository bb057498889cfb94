import { defineCheck } from './define-check.js';
import { SAFE_TO_EVICT_LOCAL_VOLUMES } from './lib/preflight-drain.js';
import { context, drainOf, workloadRef, workloadSubject } from './lib/preflight.js';
import { quoted, yamlSnippet } from './lib/snippets.js';

export default defineCheck({
  meta: {
    id: 'workload-local-storage-blocks-scale-down',
    title: 'Local storage without safe-to-evict-local-volumes',
    summary:
      'Pods with emptyDir (not memory) or hostPath volumes not listed in safe-to-evict-local-volumes: their nodes are never scaled down.',
    severity: 'warning',
    commands: ['preflight'],
    requires: [],
    messages: {
      local:
        '{workload} mounts local volume(s) {volumes} not listed in {annotation}: with --skip-nodes-with-local-storage=true CA never removes a node running its pods (LocalStorageRequested).',
    },
    upstream: 'cluster-autoscaler simulator/drainability/rules/localstorage/rule.go, utils/drain/drain.go',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    for (const w of pf.workloads) {
      const blocker = drainOf(ctx.analysis, w).blockers.find((b) => b.rule === 'LocalStorage');
      if (!blocker?.volumes) continue;
      const volumes = blocker.volumes;
      const kinds = volumes.map((name) => {
        const v = (w.pod.spec.volumes ?? []).find((x) => x.name === name);
        return v?.hostPath ? `${name} (hostPath ${v.hostPath.path})` : `${name} (emptyDir)`;
      });
      const listed = w.pod.metadata.annotations?.[SAFE_TO_EVICT_LOCAL_VOLUMES];
      ctx.report({
        messageId: 'local',
        data: {
          workload: workloadRef(w),
          volumes: volumes.join(', '),
          annotation: SAFE_TO_EVICT_LOCAL_VOLUMES,
        },
        subject: workloadSubject(w),
        caReason: blocker.reason,
        evidence: [
          { source: 'pod template volumes', observed: kinds.join(', ') },
          {
            source: `annotation ${SAFE_TO_EVICT_LOCAL_VOLUMES}`,
            observed: listed === undefined ? 'not set' : `"${listed}"`,
            expected: `"${volumes.join(',')}"`,
          },
        ],
        remediation: [
          'If the data in those volumes may be lost when the pod moves (caches, scratch space), say so on the pod template:',
          yamlSnippet({ metadata: { annotations: { [SAFE_TO_EVICT_LOCAL_VOLUMES]: quoted(volumes.join(',')) } } }, 2),
          'Names are exact and comma-separated without spaces. Otherwise use a PersistentVolumeClaim, or emptyDir.medium: Memory.',
        ].join('\n'),
      });
    }
  },
});
