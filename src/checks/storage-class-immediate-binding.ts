import { bindsImmediately, isZonalStorageClass } from '../simulate/preflight.js';
import { defineCheck } from './define-check.js';
import { context, objectSubject } from './lib/preflight.js';

export default defineCheck({
  meta: {
    id: 'storage-class-immediate-binding',
    title: 'Zonal StorageClass with Immediate binding',
    summary:
      'A zonal StorageClass (EBS) with Immediate volume binding: use WaitForFirstConsumer so volumes follow the pod and CA can add nodes where they are.',
    severity: 'info',
    commands: ['preflight'],
    requires: [],
    messages: {
      immediate:
        'StorageClass {class} ({provisioner}) binds volumes Immediately{default}: each volume gets its zone before the scheduler picks a node, so pods follow volumes instead of volumes following pods.',
    },
    upstream:
      'Kubernetes docs "Storage Classes: Volume Binding Mode"; kube-scheduler volumebinding; kubernetes/autoscaler#1431',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    for (const sc of pf.storageClassObjects) {
      const o = sc.object;
      if (!isZonalStorageClass(o) || !bindsImmediately(o)) continue;
      const isDefault =
        o.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true' ||
        o.metadata.annotations?.['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
      ctx.report({
        messageId: 'immediate',
        data: {
          class: o.metadata.name ?? '',
          provisioner: o.provisioner,
          default: isDefault ? ' and is the default class' : '',
        },
        subject: objectSubject(sc),
        evidence: [
          {
            source: `StorageClass ${o.metadata.name}`,
            observed: `volumeBindingMode ${o.volumeBindingMode ?? 'unset (Immediate)'}`,
            expected: 'WaitForFirstConsumer',
          },
        ],
        remediation: [
          'Set, on a new class (the field is immutable):',
          '  volumeBindingMode: WaitForFirstConsumer',
        ].join('\n'),
      });
    }
  },
});
