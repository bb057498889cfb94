// Both sides of a NoPlaceToMovePods race. CA's planner simulates the scale-down candidates one after the other and
// persists each removable node's moves (core/scaledown/planner/planner.go categorizeNodes: delete(podDestinations, …);
// simulator/cluster.go SimulateNodeRemoval withForkedSnapshot commits). A node whose pods found no room only because
// a node simulated earlier in the loop took it (its pods moved there, or it left the destinations) is blocked in that
// order only: in a loop that simulates it first it can be removable, and the other may not be. CA's order is defined
// only in part (processors/scaledowncandidates: empty nodes first, then the previous loop's unneeded nodes; otherwise
// the informer's order, and sort.Sort is not stable), so both nodes carry "CA may decide either".

/** A node the loop found removable before this one, with where its pods went. */
export interface EarlierRemoval {
  name: string;
  /** The nodes its pods were moved to. */
  movedTo: string[];
  /** No pods to move: CA's EmptySorting simulates it before every node that has some, so it is no side of a race. */
  empty: boolean;
}

export interface PlacementRace {
  /** The statement for the node that got NoPlaceToMovePods. */
  here: string;
  /** The statement for each earlier node that took the room, by node name. */
  others: Map<string, string>;
}

function list(names: string[]): string {
  return names.length <= 4 ? names.join(', ') : `${names.slice(0, 4).join(', ')} and ${names.length - 4} more`;
}

/**
 * Whether `node`'s NoPlaceToMovePods depends on the loop's order: `fitsWithout(gone)` places its pods on the cluster as
 * it was before this loop's simulations, less the nodes in `gone` (which always go first), and returns where they
 * landed, or undefined when they fit nowhere even so (then it is no race). Undefined when there is no race.
 */
export function noPlaceRace(
  node: string,
  earlier: readonly EarlierRemoval[],
  fitsWithout: (gone: ReadonlySet<string>) => string[] | undefined,
): PlacementRace | undefined {
  const racing = earlier.filter((e) => !e.empty);
  if (racing.length === 0) return undefined;
  const landed = fitsWithout(new Set(earlier.filter((e) => e.empty).map((e) => e.name)));
  if (!landed) return undefined;
  const room = new Set(landed);
  const culprits = racing.filter((e) => room.has(e.name) || e.movedTo.some((d) => room.has(d))).map((e) => e.name);
  if (culprits.length === 0) return undefined;
  const dests = list([...room].sort());
  const here = `its pods fit on the cluster as it was before this loop (on ${dests}), but ${list(culprits)}, simulated earlier in this loop, took that room. CA's order varies, so in a loop that simulates this node first it can be removable and ${culprits.length === 1 ? culprits[0] : 'they'} may get NoPlaceToMovePods instead; once CA has marked one unneeded it simulates it first in later loops (processors/scaledowncandidates/previouscandidates), so the first choice tends to stick`;
  const others = new Map(
    culprits.map((c) => [
      c,
      `its removal takes room ${node}'s pods need (on ${dests}); CA's order varies, so in a loop that simulates ${node} first, that node can be removable and this one may get NoPlaceToMovePods instead (core/scaledown/planner/planner.go categorizeNodes keeps each removable node's moves)`,
    ]),
  );
  return { here, others };
}
