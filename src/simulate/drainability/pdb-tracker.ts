/**
 * CA's RemainingPdbTracker (core/scaledown/pdb/basic.go): PDBs as a budget that the simulation of earlier nodes in
 * the same loop consumes (RemovePods), so a later node can hit NotEnoughPdb although status.disruptionsAllowed >= 1.
 */
import type { Pod, PodDisruptionBudget } from '../../model/k8s.js';
import { type CompiledSelector, compileLabelSelector } from '../predicates/labels.js';

export interface TrackedPdb {
  pdb: PodDisruptionBudget;
  /** What the API reported (status.disruptionsAllowed; a missing status reads as 0, as Go's zero value). */
  initial: number;
  /** Left after the pods removed so far in this loop. */
  remaining: number;
  /** Nodes whose simulated removal consumed budget, in order. */
  consumedBy: Array<{ node: string; pods: string[] }>;
  selector: CompiledSelector;
}

export class RemainingPdbTracker {
  readonly pdbs: TrackedPdb[];

  constructor(pdbs: readonly PodDisruptionBudget[]) {
    // metav1.LabelSelectorAsSelector: a nil selector matches nothing, {} matches every pod of the namespace
    this.pdbs = pdbs.map((pdb) => {
      const initial = pdb.status?.disruptionsAllowed ?? 0;
      return {
        pdb,
        initial,
        remaining: initial,
        consumedBy: [],
        selector: compileLabelSelector(pdb.spec?.selector),
      };
    });
  }

  /** PDBs in the pod's namespace whose selector matches its labels (basic.go MatchingPdbs). */
  matching(pod: Pod): TrackedPdb[] {
    const ns = pod.metadata.namespace ?? 'default';
    return this.pdbs.filter(
      (p) => (p.pdb.metadata.namespace ?? 'default') === ns && p.selector.matches(pod.metadata.labels),
    );
  }

  /** CanRemovePods' inParallel: false when a PDB allows fewer disruptions than the pods it covers (IsRisky). */
  canRemoveInParallel(pods: Pod[]): boolean {
    for (const p of this.pdbs) {
      const count = pods.filter((pod) => this.matching(pod).includes(p)).length;
      if (count > 0 && p.remaining < count) return false;
    }
    return true;
  }

  /** RemovePods: each matching pod takes one disruption from each PDB that covers it. */
  removePods(node: string, pods: Pod[]): void {
    for (const p of this.pdbs) {
      const hit = pods.filter((pod) => this.matching(pod).includes(p));
      if (hit.length === 0) continue;
      p.remaining -= hit.length;
      p.consumedBy.push({
        node,
        pods: hit.map((pod) => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`),
      });
    }
  }
}
