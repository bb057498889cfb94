// The bounds of live gathering: how much one response, one paginated list and one CA log stream may hold. A server
// that breaks one gets an EnvironmentError naming the API and the limit (exit 2), never an endless loop or a crash.

const MiB = 1024 * 1024;

export interface LiveLimits {
  /**
   * Decoded (after gzip) bytes of one Kubernetes or AWS response. A pods page of 500 (kubectl's chunk size) is ~5–8 MB
   * for ordinary pods and ~20 MB for heavy ones (sidecars, long env, managedFields); the page size, not the cluster
   * size, sets this, so 64 MiB leaves 3x headroom. A DescribeAutoScalingGroups page of 100 groups listing 15,000
   * instances between them is ~10 MB of XML.
   */
  maxResponseBytes: number;
  /**
   * Pages of one Kubernetes list: 1,000 pages of 500 is 500k objects, over 3x Kubernetes' tested envelope (150k pods,
   * 15k nodes); a larger list is a server that never stops.
   */
  maxListPages: number;
  /** Pages of one AWS pagination (100 ASGs, 100 instance types ... per page): 1,000 pages, far above any account. */
  maxAwsPages: number;
  /** Bytes kept per CA log stream (current or previous container): `limitBytes` and casdoctor's own cap. */
  caLogBytes: number;
  /** Bytes kept of CA's /metrics through the pod proxy (a few hundred KB even with hundreds of node groups). */
  caMetricsBytes: number;
  /** Bytes kept of CA's /snapshotz (every node and pod CA sees: large on a large cluster, so truncated and marked). */
  caSnapshotBytes: number;
}

export const DEFAULT_LIVE_LIMITS: Readonly<LiveLimits> = {
  maxResponseBytes: 64 * MiB,
  maxListPages: 1_000,
  maxAwsPages: 1_000,
  caLogBytes: 32 * MiB,
  caMetricsBytes: 16 * MiB,
  caSnapshotBytes: 64 * MiB,
};

export function liveLimits(overrides?: Partial<LiveLimits>): LiveLimits {
  return { ...DEFAULT_LIVE_LIMITS, ...(overrides ?? {}) };
}

/** "64 MiB", "512 KiB", "900 bytes": how a limit is named in messages. */
export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
