// What the offline loader does to each Kubernetes list item as soon as it is parsed: recognise its kind, fit it to the
// shape casdoctor reads and keep only those fields (src/gather/shape.ts). Runs on the main thread and in the parse
// workers (src/gather/parse-worker.ts), which send their results back as JSON (toTransport / fromTransport).
import type { DataKind } from '../model/snapshot.js';
import { type FieldProfile, fitToShape, isObject } from './shape.js';

/** This module's URL: the mapper parse workers import (src/gather/parse-worker.ts). */
export const PREFIT_URL = import.meta.url;

/** Kubernetes kinds the loader keeps, and where they go. */
export const KIND_TO_DATA: Record<string, DataKind> = {
  Pod: 'pods',
  Node: 'nodes',
  Event: 'events',
  PodDisruptionBudget: 'pdbs',
  PersistentVolumeClaim: 'pvcs',
  PersistentVolume: 'pvs',
  StorageClass: 'storageClasses',
  ReplicaSet: 'replicaSets',
  ReplicationController: 'replicationControllers',
  Deployment: 'deployments',
  StatefulSet: 'statefulSets',
  DaemonSet: 'daemonSets',
  Job: 'jobs',
  PriorityClass: 'priorityClasses',
  ConfigMap: 'configMaps',
  ServiceAccount: 'serviceAccounts',
  ProvisioningRequest: 'provisioningRequests',
  PodTemplate: 'podTemplates',
  CapacityBuffer: 'capacityBuffers',
  NodePool: 'nodePools',
  EC2NodeClass: 'ec2NodeClasses',
  NodeClaim: 'nodeClaims',
};

/** CA's custom resources and PodTemplates: few and small, recognised by the loader with their full check (ca-crds.ts). */
export const CA_CRD_TARGETS: ReadonlySet<DataKind> = new Set(['provisioningRequests', 'podTemplates', 'capacityBuffers']);

/** Karpenter's custom resources: few, kept whole and recognised by the loader with their full check (karpenter-crds.ts). */
export const KARPENTER_CRD_TARGETS: ReadonlySet<DataKind> = new Set(['nodePools', 'ec2NodeClasses', 'nodeClaims']);

/** Own keys only: a kind named "constructor" or "toString" is just unknown. */
export function kindTarget(kind: string): DataKind | undefined {
  return Object.hasOwn(KIND_TO_DATA, kind) ? KIND_TO_DATA[kind] : undefined;
}

/** A list item already fitted (and projected) as it was parsed, so the rest of its text never reaches old space. */
export class Prefitted {
  constructor(
    readonly target: DataKind,
    readonly obj: Record<string, unknown> | undefined,
    readonly problems: string[],
    readonly who: string,
  ) {}
}

export function whoOf(kind: string, metadata: Record<string, unknown>): string {
  return `${kind} ${[metadata.namespace, metadata.name].filter((x) => typeof x === 'string').join('/')}`;
}

/** Fits and projects one list item; anything unusual (no kind, events.k8s.io) is returned as it is for the loader. */
export function prefit(item: unknown, profile: FieldProfile = 'read'): unknown {
  if (!isObject(item) || typeof item.kind !== 'string' || !isObject(item.metadata)) return item;
  const target = kindTarget(item.kind);
  if (
    !target ||
    CA_CRD_TARGETS.has(target) ||
    KARPENTER_CRD_TARGETS.has(target) ||
    (item.kind === 'Event' && typeof item.apiVersion === 'string' && item.apiVersion.startsWith('events.k8s.io/'))
  )
    return item;
  const problems: string[] = [];
  const obj = fitToShape(target, item, problems, '', true, profile);
  // the object's name is only read to prefix a warning: built for the few items with a problem, not for 100k pods
  return new Prefitted(target, obj, problems, problems.length > 0 ? whoOf(item.kind, item.metadata) : '');
}

/**
 * A prefit result as JSON: [target, object or null] for a fitted item without problems, [target, object or null,
 * problems, who] with some, {raw} for anything else.
 */
export function toTransport(v: unknown): unknown {
  if (!(v instanceof Prefitted)) return { raw: v };
  return v.problems.length > 0 ? [v.target, v.obj ?? null, v.problems, v.who] : [v.target, v.obj ?? null];
}

export function fromTransport(t: unknown): unknown {
  if (Array.isArray(t)) return new Prefitted(t[0], t[1] ?? undefined, t[2] ?? [], t[3] ?? '');
  return (t as { raw: unknown }).raw;
}

/** The name parse workers import (src/gather/parse-worker.ts). */
export const mapItem = prefit;
