// How scale-down's reports write numbers, durations and pods.
import type { Pod } from '../../model/k8s.js';
import { podKeyOf } from '../drainability/pod-util.js';

/** Ratios in the JSON: four decimals are enough and keep the output stable. */
export function round4(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}

export function pct(v: number): string {
  return `${(v * 100).toFixed(1).replace(/\.0$/, '')}%`;
}

export function minutes(ms: number): string {
  const m = Math.ceil(ms / 60_000);
  return m >= 90 ? `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}` : `${m}m`;
}

export function ref(pod: Pod): string {
  return podKeyOf(pod);
}
