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
  // Which PDBs cover a pod never changes during a run (only their budgets do): indexed by namespace, cached per pod,
  // so checking a node is O(its pods) instead of O(PDBs² × pods) (2,000 PDBs made this most of scale-down-blockers).
  private readonly byNamespace = new Map<string, TrackedPdb[]>();
  private readonly matches = new WeakMap<Pod, TrackedPdb[]>();

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
    for (const p of this.pdbs) {
      const ns = p.pdb.metadata.namespace ?? 'default';
      const list = this.byNamespace.get(ns);
      if (list) list.push(p);
      else this.byNamespace.set(ns, [p]);
    }
  }

  /** PDBs in the pod's namespace whose selector matches its labels (basic.go MatchingPdbs). */
  matching(pod: Pod): TrackedPdb[] {
    let found = this.matches.get(pod);
    if (!found) {
      const inNamespace = this.byNamespace.get(pod.metadata.namespace ?? 'default') ?? [];
      found = inNamespace.filter((p) => p.selector.matches(pod.metadata.labels));
      this.matches.set(pod, found);
    }
    return found;
  }

  /** The pods each PDB covers, in the order given. */
  private covered(pods: Pod[]): Map<TrackedPdb, Pod[]> {
    const out = new Map<TrackedPdb, Pod[]>();
    for (const pod of pods) {
      for (const p of this.matching(pod)) {
        const list = out.get(p);
        if (list) list.push(pod);
        else out.set(p, [pod]);
      }
    }
    return out;
  }

  /** CanRemovePods' inParallel: false when a PDB allows fewer disruptions than the pods it covers (IsRisky). */
  canRemoveInParallel(pods: Pod[]): boolean {
    for (const [p, hit] of this.covered(pods)) if (p.remaining < hit.length) return false;
    return true;
  }

  /** RemovePods: each matching pod takes one disruption from each PDB that covers it. */
  removePods(node: string, pods: Pod[]): void {
    const covered = this.covered(pods);
    for (const p of this.pdbs) {
      const hit = covered.get(p);
      if (!hit) continue;
      p.remaining -= hit.length;
      p.consumedBy.push({
        node,
        pods: hit.map((pod) => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`),
      });
    }
  }
}
