/**
 * Controllers and PodDisruptionBudgets in the shape `kubectl get -o json` prints them, for the scale-down tests:
 *   replicaSet('web', 'api-7f9c8d6b5', 3) / statefulSet(...) / daemonSet(...) / job(...)
 *   pdb('web', 'api').selecting({ app: 'api' }).maxUnavailable(1).status({ disruptionsAllowed: 1, ... }).build()
 * UIDs come from uidFor(<kind>/<namespace>/<name>), the same seed PodBuilder.ownedBy uses, so owner refs line up.
 */
import type { PodDisruptionBudget, Workload } from '../../src/model/k8s.js';
import { CREATED, uidFor } from './k8s.js';

function workload(
  apiVersion: string,
  kind: string,
  namespace: string,
  name: string,
  spec: Workload['spec'],
  status: Record<string, unknown>,
): Workload {
  return {
    apiVersion,
    kind,
    metadata: {
      name,
      namespace,
      uid: uidFor(`${kind}/${namespace}/${name}`),
      resourceVersion: '2049311',
      generation: 1,
      creationTimestamp: CREATED,
    },
    spec,
    status,
  };
}

export function replicaSet(namespace: string, name: string, replicas: number, labels = { app: name }): Workload {
  return workload(
    'apps/v1',
    'ReplicaSet',
    namespace,
    name,
    { replicas, selector: { matchLabels: labels }, template: { metadata: { labels } } },
    { replicas, readyReplicas: replicas, availableReplicas: replicas, fullyLabeledReplicas: replicas, observedGeneration: 1 },
  );
}

export function statefulSet(namespace: string, name: string, replicas: number, labels = { app: name }): Workload {
  return workload(
    'apps/v1',
    'StatefulSet',
    namespace,
    name,
    { replicas, serviceName: name, selector: { matchLabels: labels }, template: { metadata: { labels } } },
    { replicas, readyReplicas: replicas, currentReplicas: replicas, updatedReplicas: replicas, observedGeneration: 1 },
  );
}

export function daemonSet(namespace: string, name: string, labels = { app: name }): Workload {
  return workload(
    'apps/v1',
    'DaemonSet',
    namespace,
    name,
    { selector: { matchLabels: labels }, template: { metadata: { labels } } },
    { currentNumberScheduled: 3, desiredNumberScheduled: 3, numberReady: 3, numberMisscheduled: 0, observedGeneration: 1 },
  );
}

export function job(namespace: string, name: string): Workload {
  return workload(
    'batch/v1',
    'Job',
    namespace,
    name,
    { parallelism: 1, completions: 1, backoffLimit: 6, template: { metadata: { labels: { 'job-name': name } } } },
    { active: 1, ready: 1, startTime: CREATED },
  );
}

export class PdbBuilder {
  private p: PodDisruptionBudget;

  constructor(namespace: string, name: string) {
    this.p = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name, namespace, uid: uidFor(`pdb/${namespace}/${name}`), generation: 1, creationTimestamp: CREATED },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: name } } },
      status: {
        currentHealthy: 2,
        desiredHealthy: 1,
        disruptionsAllowed: 1,
        expectedPods: 2,
        observedGeneration: 1,
      } as PodDisruptionBudget['status'],
    };
  }

  selecting(matchLabels: Record<string, string>): this {
    this.p.spec = { ...this.p.spec, selector: { matchLabels } };
    return this;
  }

  withSelector(selector: NonNullable<PodDisruptionBudget['spec']>['selector']): this {
    this.p.spec = { ...this.p.spec, selector };
    return this;
  }

  maxUnavailable(v: number | string): this {
    const { minAvailable: _, ...rest } = this.p.spec ?? {};
    this.p.spec = { ...rest, maxUnavailable: v };
    return this;
  }

  minAvailable(v: number | string): this {
    const { maxUnavailable: _, ...rest } = this.p.spec ?? {};
    this.p.spec = { ...rest, minAvailable: v };
    return this;
  }

  /** Sets status as the disruption controller computes it: allowed = currentHealthy - desiredHealthy (>= 0). */
  healthy(current: number, desired: number, expected = current): this {
    this.p.status = {
      currentHealthy: current,
      desiredHealthy: desired,
      disruptionsAllowed: Math.max(0, current - desired),
      expectedPods: expected,
      observedGeneration: 1,
    } as PodDisruptionBudget['status'];
    return this;
  }

  withoutStatus(): this {
    delete this.p.status;
    return this;
  }

  build(): PodDisruptionBudget {
    return structuredClone(this.p);
  }
}

export function pdb(namespace: string, name: string): PdbBuilder {
  return new PdbBuilder(namespace, name);
}
