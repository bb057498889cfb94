// A DrainContext for rule tests: CA 1.37 defaults, listers holding one object of each kind (see drainCtx).
import type { PodDisruptionBudget } from '../../src/model/k8s.js';
import { RemainingPdbTracker } from '../../src/simulate/drainability/pdb-tracker.js';
import type { ControllerListers, DrainContext, DrainOptions } from '../../src/simulate/drainability/types.js';
import { daemonSet as dsObject, job, replicaSet, statefulSet } from './workloads.js';

export const DRAIN_NOW = new Date('2026-01-05T12:00:00Z');

export const keyed = <T extends { metadata: { namespace?: string; name?: string } }>(...objs: T[]) =>
  new Map(objs.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o]));

/** CA 1.37 defaults, every lister present with one object of each kind in namespace "web". */
export function drainCtx(
  o: Partial<DrainOptions> & { listers?: ControllerListers | null; pdbs?: PodDisruptionBudget[]; now?: Date } = {},
): DrainContext {
  const { listers, pdbs, now, ...options } = o;
  return {
    now: now ?? DRAIN_NOW,
    options: {
      minor: 37,
      skipNodesWithSystemPods: true,
      skipNodesWithLocalStorage: true,
      skipNodesWithCustomControllerPods: true,
      minReplicaCount: 0,
      blockingSystemPodDistruptionTimeoutMs: 3_600_000,
      ...options,
    },
    ...(listers === null
      ? {}
      : {
          listers: listers ?? {
            replicaSets: keyed(replicaSet('web', 'api-7f9c8d6b5', 3)),
            statefulSets: keyed(statefulSet('web', 'cache', 3)),
            daemonSets: keyed(dsObject('kube-system', 'aws-node')),
            jobs: keyed(job('batch', 'report-29920440')),
          },
        }),
    pdbs: new RemainingPdbTracker(pdbs ?? []),
  };
}

