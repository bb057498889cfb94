import { gatheredList } from '../model/snapshot.js';
import {
  consumedProvisioningRequestRef,
  consumerPodReason,
  PROVREQ_CLASS_ANNOTATION,
  PROVREQ_CLASS_ANNOTATION_DEPRECATED,
  provisioningClassAnnotation,
  provReqCaSettings,
} from '../simulate/provisioning-request.js';
import { examinedPods } from '../simulate/why-pending.js';
import { isPendingCandidate } from '../model/k8s.js';
import { defineCheck } from './define-check.js';
import { notGathered, provReqState } from './lib/ca-crds.js';
import { podRef, podSubject } from './lib/support.js';

export default defineCheck({
  meta: {
    id: 'pod-consumes-provisioning-request',
    title: 'Pending pod consumes a ProvisioningRequest',
    summary:
      'A Pending pod consumes a ProvisioningRequest: CA never scales up for it directly, it waits on the request (shown with its state).',
    severity: 'info',
    commands: ['why-pending'],
    requires: ['pods'],
    messages: {
      waiting: 'Pod {pod} consumes ProvisioningRequest {ref}: CA does not scale up for it; {state}.',
      notFiltered:
        'Pod {pod} consumes ProvisioningRequest {ref}, but CA runs without --enable-provisioning-requests: CA scales up for it like any pod and never processes the request.',
      missing: 'Pod {pod} consumes ProvisioningRequest {ref}, which does not exist: CA ignores the pod for scale-up and nothing will provision it.',
      classOnly:
        'Pod {pod} carries the {annotation} annotation but not consume-provisioning-request: CA treats it as a regular pod.',
    },
    upstream: 'cluster-autoscaler pkg/processors/provreq/pods_filter.go (ProvisioningRequestPodsFilter)',
  },
  run(ctx) {
    const a = ctx.analysis;
    const provReqs = gatheredList(a.raw, 'provisioningRequests');
    for (const pod of examinedPods(a)) {
      if (!isPendingCandidate(pod)) continue;
      const ref = consumedProvisioningRequestRef(pod);
      if (!ref) {
        const cls = provisioningClassAnnotation(pod);
        if (cls !== undefined) {
          const ann = pod.metadata.annotations ?? {};
          ctx.report({
            messageId: 'classOnly',
            data: { pod: podRef(pod), annotation: PROVREQ_CLASS_ANNOTATION in ann ? PROVREQ_CLASS_ANNOTATION : PROVREQ_CLASS_ANNOTATION_DEPRECATED },
            subject: podSubject(pod),
            evidence: [{ source: `Pod ${podRef(pod)} annotations`, observed: `provisioning-class-name: ${cls}`, expected: 'autoscaling.x-k8s.io/consume-provisioning-request: <name> as well' }],
          });
        }
        continue;
      }
      const refText = `${ref.namespace}/${ref.name}`;
      if (provReqCaSettings(a.ca).enabled === false) {
        ctx.report({
          messageId: 'notFiltered',
          data: { pod: podRef(pod), ref: refText },
          subject: podSubject(pod),
          severity: 'warning',
          evidence: [{ source: `Pod ${podRef(pod)} annotations`, observed: `consume-provisioning-request: ${ref.name}` }],
          remediation: "Add `--enable-provisioning-requests=true` to CA's arguments (CA 1.30+), or remove the annotation if the pod should not wait for a ProvisioningRequest.",
        });
        continue;
      }
      const pr = provReqs?.find((p) => (p.metadata.namespace ?? 'default') === ref.namespace && p.metadata.name === ref.name);
      const evidence = [{ source: `Pod ${podRef(pod)} annotations`, observed: `consume-provisioning-request: ${ref.name}` }];
      if (provReqs && !pr) {
        ctx.report({ messageId: 'missing', data: { pod: podRef(pod), ref: refText }, subject: podSubject(pod), severity: 'warning', caReason: 'ProvisioningRequest', evidence });
        continue;
      }
      const state = pr ? provReqState(a, pr) : undefined;
      if (state) evidence.push({ source: `ProvisioningRequest ${refText}`, observed: `${state.className}: ${state.summary}` });
      ctx.report({
        messageId: 'waiting',
        data: {
          pod: podRef(pod),
          ref: refText,
          state: state ? consumerPodReason(ref, state).replace(/^CA is waiting on ProvisioningRequest [^:]+: /, '') : `its state is ${notGathered('provisioningRequests')}`,
        },
        subject: podSubject(pod),
        ...(state?.reason ? { caReason: state.reason } : {}),
        evidence,
      });
    }
  },
});
