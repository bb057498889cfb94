// One typed view of Karpenter's inputs for checks and commands: its NodePools, EC2NodeClasses, NodeClaims, controller
// settings and EC2's instance-type offerings, with whether each was gathered and whether Karpenter runs at all. Pure;
// computed once per Analysis.
import type { Ec2InstanceTypeOffering } from '../../../model/aws.js';
import type { EC2NodeClass, KarpenterDeploymentSettings, NodeClaim, NodePool } from '../../../model/karpenter.js';
import type { RawInputs } from '../../../model/snapshot.js';
import { findKarpenterDeployment, karpenterSettingsOf } from './settings.js';

export interface KarpenterInputsView {
  nodePools: NodePool[];
  nodeClasses: EC2NodeClass[];
  nodeClaims: NodeClaim[];
  /** The controller's settings; undefined when no Karpenter Deployment is in the input. */
  settings?: KarpenterDeploymentSettings;
  /** Karpenter is installed: a NodePool, EC2NodeClass or NodeClaim exists, or its controller Deployment was found. */
  present: boolean;
  /** Which lists were gathered (an empty list gathered means none exist; not gathered means unknown). */
  provided: { nodePools: boolean; nodeClasses: boolean; nodeClaims: boolean; offerings: boolean };
  /** ec2:DescribeInstanceTypeOfferings (availability-zone) rows; undefined when not gathered. */
  offerings?: Ec2InstanceTypeOffering[];
  /** The zones of every NodeClass's resolved subnets (status.subnets[].zone), sorted. */
  zones: string[];
}

/** The zones Karpenter may launch in: the zones of the NodeClasses' resolved subnets (EC2NodeClass status.subnets). */
export function nodeClassZones(nodeClasses: readonly EC2NodeClass[]): string[] {
  const zones = new Set<string>();
  for (const nc of nodeClasses)
    for (const s of nc.status?.subnets ?? []) if (typeof s?.zone === 'string' && s.zone !== '') zones.add(s.zone);
  return [...zones].sort();
}

/** The view from raw inputs (uncached; use karpenterOf with an Analysis). */
export function karpenterInputs(raw: RawInputs): KarpenterInputsView {
  const found = findKarpenterDeployment(raw.deployments);
  const settings = found ? karpenterSettingsOf(found) : undefined;
  const nodePools = raw.nodePools ?? [];
  const nodeClasses = raw.ec2NodeClasses ?? [];
  const nodeClaims = raw.nodeClaims ?? [];
  const offeringsProvided = raw.provided.has('instanceTypeOfferings') || (raw.instanceTypeOfferings ?? []).length > 0;
  return {
    nodePools,
    nodeClasses,
    nodeClaims,
    ...(settings ? { settings } : {}),
    present: found !== undefined || nodePools.length > 0 || nodeClasses.length > 0 || nodeClaims.length > 0,
    provided: {
      nodePools: raw.provided.has('nodePools') || nodePools.length > 0,
      nodeClasses: raw.provided.has('ec2NodeClasses') || nodeClasses.length > 0,
      nodeClaims: raw.provided.has('nodeClaims') || nodeClaims.length > 0,
      offerings: offeringsProvided,
    },
    ...(offeringsProvided ? { offerings: raw.instanceTypeOfferings ?? [] } : {}),
    zones: nodeClassZones(nodeClasses),
  };
}

const cache = new WeakMap<object, KarpenterInputsView>();

/** Karpenter's inputs of an Analysis, computed once per Analysis. */
export function karpenterOf(analysis: { readonly raw: RawInputs }): KarpenterInputsView {
  let view = cache.get(analysis);
  if (!view) {
    view = karpenterInputs(analysis.raw);
    cache.set(analysis, view);
  }
  return view;
}
