/**
 * Node utilization as CA computes it for scale-down (simulator/utilization/info.go Calculate,
 * CalculateUtilizationOfResource): pod requests over node allocatable, max of cpu and memory; on GPU nodes the GPU
 * alone. DaemonSet and mirror pods are left out of both numerator and denominator when the flags say so;
 * long-terminating pods are left out of the numerator.
 */
import type { Node, Pod } from '../model/k8s.js';
import { isDaemonSetPod, isMirrorPod, isPodLongTerminating } from './drainability/pod-util.js';
import { nodeAllocatable, podRequests } from './resources.js';

/** cloudprovider/aws GPULabel */
export const AWS_GPU_LABEL = 'k8s.amazonaws.com/accelerator';
/** utils/gpu/gpu.go: the extended resources CA recognises as GPUs. */
export const GPU_RESOURCES = [
  'nvidia.com/gpu',
  'amd.com/gpu',
  'habana.ai/gaudi',
  'gpu.intel.com/xe',
  'microsoft.com/directx',
] as const;

/** The GPU resource CA uses for a node, or undefined for a non-GPU node (CA: GetNodeGpuConfig on AWS). */
export function nodeGpuResource(node: Node): string | undefined {
  const alloc = nodeAllocatable(node);
  const present = GPU_RESOURCES.find((r) => (alloc[r] ?? 0) > 0);
  if (present) return present;
  if (node.metadata.labels && Object.hasOwn(node.metadata.labels, AWS_GPU_LABEL)) return 'nvidia.com/gpu';
  return undefined;
}

export interface UtilizationOptions {
  ignoreDaemonSets: boolean;
  ignoreMirrorPods: boolean;
  now: Date;
}

export interface UtilizationResult {
  cpu: number;
  memory: number;
  gpu?: number;
  /** What CA compares with the threshold. */
  value: number;
  resource: string;
  /** CA could not compute a resource (missing or zero allocatable): CA then reports an error for the node. */
  error?: string;
  /** The GPU resource is missing or zero: CA reports 0 "to guarantee we can still scale down a node with unready GPU". */
  unreadyGpu?: boolean;
}

/** CalculateUtilizationOfResource: sum(requests) / (allocatable - ignored DaemonSet and mirror requests). */
export function utilizationOfResource(
  node: Node,
  pods: readonly Pod[],
  resource: string,
  o: UtilizationOptions,
): { value: number } | { error: string } {
  const alloc = nodeAllocatable(node)[resource];
  const name = node.metadata.name ?? '';
  if (alloc === undefined) return { error: `failed to get ${resource} from ${name}` };
  if (alloc === 0) return { error: `${resource} is 0 at ${name}` };
  let requested = 0;
  let ignored = 0;
  for (const pod of pods) {
    const r = podRequests(pod)[resource] ?? 0;
    if (o.ignoreDaemonSets && isDaemonSetPod(pod)) {
      ignored += r;
      continue;
    }
    if (o.ignoreMirrorPods && isMirrorPod(pod)) {
      ignored += r;
      continue;
    }
    if (isPodLongTerminating(pod, o.now)) continue;
    requested += r;
  }
  return { value: requested / (alloc - ignored) };
}

/** Calculate: GPU nodes by GPU only; otherwise max(cpu, memory), memory winning a tie. DRA is not modelled. */
export function calculateUtilization(node: Node, pods: readonly Pod[], o: UtilizationOptions): UtilizationResult {
  const gpu = nodeGpuResource(node);
  const cpu = utilizationOfResource(node, pods, 'cpu', o);
  const memory = utilizationOfResource(node, pods, 'memory', o);
  const cpuValue = 'value' in cpu ? cpu.value : 0;
  const memValue = 'value' in memory ? memory.value : 0;
  if (gpu) {
    const g = utilizationOfResource(node, pods, gpu, o);
    if ('error' in g) return { cpu: cpuValue, memory: memValue, gpu: 0, value: 0, resource: gpu, unreadyGpu: true };
    return { cpu: cpuValue, memory: memValue, gpu: g.value, value: g.value, resource: gpu };
  }
  const error = 'error' in cpu ? cpu.error : 'error' in memory ? memory.error : undefined;
  if (cpuValue > memValue) return { cpu: cpuValue, memory: memValue, value: cpuValue, resource: 'cpu', ...(error ? { error } : {}) };
  return { cpu: cpuValue, memory: memValue, value: memValue, resource: 'memory', ...(error ? { error } : {}) };
}
