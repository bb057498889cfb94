import type { Subject } from '../model/findings.js';
import type { LocatedObject } from '../model/preflight.js';
import type { PersistentVolumeClaim } from '../model/k8s.js';
import {
  bindsImmediately,
  isZonalStorageClass,
  type WorkloadClaim,
  workloadClaims,
} from '../simulate/preflight.js';
import { defineCheck } from './define-check.js';
import {
  context,
  objectSubject,
  placements,
  workloadRef,
  workloadSubject,
  zonesOf,
} from './lib/preflight.js';
import { flowMap, yamlSnippet } from './lib/snippets.js';

export default defineCheck({
  meta: {
    id: 'volume-immediate-binding-multi-az',
    title: 'Immediate-binding zonal volume for pods that span zones',
    summary:
      "StatefulSets or PVCs with an Immediate-binding zonal StorageClass whose pods' node groups span several zones: the volume's zone is chosen before the pod's.",
    severity: 'warning',
    commands: ['preflight'],
    requires: ['autoScalingGroups'],
    messages: {
      workload:
        '{workload} gets claim {claim} from StorageClass {class} ({provisioner}, Immediate binding), while the node groups it fits span {zones}: the volume is created in one zone before the pod is scheduled, and CA cannot choose that zone for a new node.',
      pvc: 'PersistentVolumeClaim {claim} uses StorageClass {class} ({provisioner}, Immediate binding), while the node groups {who} span {zones}: the volume is created in one zone before any pod is scheduled, and CA cannot choose that zone for a new node.',
    },
    upstream:
      'kube-scheduler volumebinding (Immediate vs WaitForFirstConsumer); kubernetes/autoscaler#1431, cluster-autoscaler FAQ "Common notes about gce and AWS" (one node group per zone)',
  },
  run(ctx) {
    const pf = context(ctx.analysis);
    if (!pf) return;
    const reported = new Set<string>();
    const remediation = (cls: string) =>
      [
        `Use a StorageClass with volumeBindingMode: WaitForFirstConsumer, so the volume is created in the zone the scheduler picks:`,
        yamlSnippet(
          {
            apiVersion: 'storage.k8s.io/v1',
            kind: 'StorageClass',
            metadata: flowMap({ name: `${cls}-wffc` }),
            provisioner: 'ebs.csi.aws.com',
            volumeBindingMode: 'WaitForFirstConsumer',
          },
          2,
        ),
        'volumeBindingMode cannot be changed on an existing class: create a new one and point the claims at it.',
      ].join('\n');
    const risky = (c: WorkloadClaim) =>
      c.storageClass &&
      isZonalStorageClass(c.storageClass) &&
      bindsImmediately(c.storageClass) &&
      !c.pvc?.spec?.volumeName;
    for (const p of placements(ctx.analysis)) {
      if (p.caFits.length === 0) continue;
      const zones = zonesOf(p.caFits);
      if (zones.length < 2) continue;
      for (const c of workloadClaims(ctx.analysis, p.workload)) {
        if (!risky(c) || (c.origin !== 'volumeClaimTemplate' && c.origin !== 'manifest')) continue;
        const sc = c.storageClass!;
        const key =
          c.origin === 'manifest'
            ? `pvc/${p.workload.namespace}/${c.claimName}`
            : `w/${workloadRef(p.workload)}/${c.volume}`;
        if (reported.has(key)) continue;
        reported.add(key);
        const pvcObj =
          c.origin === 'manifest'
            ? pf.pvcs.find(
                (x) =>
                  x.object.metadata.name === c.claimName &&
                  x.object.metadata.namespace === p.workload.namespace,
              )
            : undefined;
        const subject: Subject = pvcObj ? objectSubject(pvcObj) : workloadSubject(p.workload);
        ctx.report({
          messageId: pvcObj ? 'pvc' : 'workload',
          data: {
            workload: workloadRef(p.workload),
            claim: c.claimName,
            class: c.className,
            provisioner: sc.provisioner,
            zones: zones.join(', '),
            who: `that can run ${workloadRef(p.workload)}`,
          },
          subject,
          evidence: [
            {
              source: `StorageClass ${c.className}`,
              observed: `provisioner ${sc.provisioner}, volumeBindingMode ${sc.volumeBindingMode ?? 'Immediate (default)'}`,
              expected: 'WaitForFirstConsumer',
            },
            {
              source: 'node groups that fit',
              observed: p.caFits.map((g) => `${g.g.group.name}: ${g.g.zones.join(', ')}`).join('; '),
            },
          ],
          remediation: remediation(c.className),
        });
      }
    }
    // PVCs nobody in the inputs mounts: judged against every group CA can scale
    const usable = pf.groups.filter((g) => !g.gate);
    const allZones = [...new Set(usable.flatMap((g) => g.zones))].sort();
    if (allZones.length < 2) return;
    for (const pvc of pf.pvcs as Array<LocatedObject<PersistentVolumeClaim>>) {
      const key = `pvc/${pvc.object.metadata.namespace}/${pvc.object.metadata.name}`;
      if (reported.has(key)) continue;
      const mounted = pf.workloads.some(
        (w) =>
          w.namespace === pvc.object.metadata.namespace &&
          (w.pod.spec.volumes ?? []).some(
            (v) => v.persistentVolumeClaim?.claimName === pvc.object.metadata.name,
          ),
      );
      if (mounted) continue;
      const explicit = pvc.object.spec?.storageClassName;
      const className =
        typeof explicit === 'string'
          ? explicit
          : [...pf.storageClasses.values()].find(
              (s) => s.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true',
            )?.metadata.name;
      const sc = className ? pf.storageClasses.get(className) : undefined;
      if (!sc || !isZonalStorageClass(sc) || !bindsImmediately(sc) || pvc.object.spec?.volumeName) continue;
      reported.add(key);
      ctx.report({
        messageId: 'pvc',
        data: {
          claim: `${pvc.object.metadata.namespace}/${pvc.object.metadata.name}`,
          class: className ?? '',
          provisioner: sc.provisioner,
          zones: allZones.join(', '),
          who: 'CA can scale',
        },
        subject: objectSubject(pvc),
        evidence: [
          {
            source: `StorageClass ${className}`,
            observed: `provisioner ${sc.provisioner}, volumeBindingMode ${sc.volumeBindingMode ?? 'Immediate (default)'}`,
            expected: 'WaitForFirstConsumer',
          },
          {
            source: 'node groups',
            observed: usable.map((g) => `${g.group.name}: ${g.zones.join(', ')}`).join('; '),
          },
        ],
        remediation: remediation(className ?? 'gp3'),
      });
    }
  },
});
