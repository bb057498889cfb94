/** Small constructors for FilterStatus values shared by the predicate modules. */
import type { FilterCode, FilterStatus } from '../../model/scheduling.js';

const SUCCESS = new Map<string, FilterStatus>();
/** A plugin's Success, one frozen object per plugin: the placement search asks every plugin of every node it tries. */
export function success(plugin: string): FilterStatus {
  let s = SUCCESS.get(plugin);
  if (!s) SUCCESS.set(plugin, (s = Object.freeze({ plugin, code: 'Success', reasons: Object.freeze([] as string[]) as string[] })));
  return s;
}

export function failure(
  plugin: string,
  code: FilterCode,
  reasons: string[],
  details?: string[],
): FilterStatus {
  return details && details.length > 0 ? { plugin, code, reasons, details } : { plugin, code, reasons };
}

export function notEvaluated(plugin: string, details: string[]): FilterStatus {
  return { plugin, code: 'NotEvaluated', reasons: [], details };
}

export function podKey(pod: { metadata: { name?: string; namespace?: string } }): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
}

/**
 * Memoizes a per-(view, pod) computation: predicates run once per node, their cluster-wide precomputation
 * (the scheduler's PreFilter state) once per pod. Views and pods are treated as immutable.
 */
export function memoByViewAndPod<V extends object, P extends object, T>(
  compute: (pod: P, view: V) => T,
): (pod: P, view: V) => T {
  const cache = new WeakMap<V, WeakMap<P, T>>();
  return (pod, view) => {
    let perView = cache.get(view);
    if (!perView) {
      perView = new WeakMap();
      cache.set(view, perView);
    }
    if (perView.has(pod)) return perView.get(pod) as T;
    const value = compute(pod, view);
    perView.set(pod, value);
    return value;
  };
}

/** Memoizes a per-view computation. */
export function memoByView<V extends object, T>(compute: (view: V) => T): (view: V) => T {
  const cache = new WeakMap<V, T>();
  return (view) => {
    if (cache.has(view)) return cache.get(view) as T;
    const value = compute(view);
    cache.set(view, value);
    return value;
  };
}
