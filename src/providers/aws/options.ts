// CA's AWS provider's per-group options (GetOptions): ASG tags k8s.io/cluster-autoscaler/node-template/autoscaling-options/*.
import type { CaConfig } from '../../model/ca-config.js';
import { parseGoDuration } from '../../model/duration.js';
import type { NodeGroup } from '../../model/node-group.js';
import { parseGoBool } from '../../simulate/ca-config.js';
import type { GroupScaleDownOptions } from '../../model/scale-down.js';

export const AUTOSCALING_OPTIONS_PREFIX = 'k8s.io/cluster-autoscaler/node-template/autoscaling-options/';

/** The per-ASG overrides CA's AWS provider reads (aws_manager.go GetAsgOptions; only these five keys). */
export function groupScaleDownOptions(group: NodeGroup | undefined, ca: CaConfig): GroupScaleDownOptions {
  const f = ca.flags;
  const o: GroupScaleDownOptions = {
    threshold: f.scaleDownUtilizationThreshold.value,
    gpuThreshold: f.scaleDownGpuUtilizationThreshold.value,
    thresholdSource: 'flag',
    gpuThresholdSource: 'flag',
    unneededTimeMs: f.scaleDownUnneededTime.value,
    unreadyTimeMs: f.scaleDownUnreadyTime.value,
    ignoreDaemonSetsUtilization: f.ignoreDaemonsetsUtilization.value,
    problems: [],
  };
  // a group of another provider carries no ASG tags: CA's flags apply
  for (const t of group?.provider === 'aws' ? (group.asg.Tags ?? []) : []) {
    if (!t.Key.startsWith(AUTOSCALING_OPTIONS_PREFIX)) continue;
    const key = t.Key.slice(AUTOSCALING_OPTIONS_PREFIX.length);
    const v = t.Value ?? '';
    const bad = () => o.problems.push(`tag ${t.Key}="${v}" is not a valid value; CA keeps the default`);
    switch (key) {
      case 'scaledownutilizationthreshold':
      case 'scaledowngpuutilizationthreshold': {
        const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v.trim()) ? Number(v) : Number.NaN;
        if (Number.isNaN(n)) bad();
        else if (key === 'scaledownutilizationthreshold') {
          o.threshold = n;
          o.thresholdSource = 'asg-tag';
        } else {
          o.gpuThreshold = n;
          o.gpuThresholdSource = 'asg-tag';
        }
        break;
      }
      case 'scaledownunneededtime':
      case 'scaledownunreadytime':
        try {
          const ms = parseGoDuration(v);
          if (key === 'scaledownunneededtime') o.unneededTimeMs = ms;
          else o.unreadyTimeMs = ms;
        } catch {
          bad();
        }
        break;
      case 'ignoredaemonsetsutilization': {
        const b = parseGoBool(v);
        if (b === undefined) bad();
        else o.ignoreDaemonSetsUtilization = b;
        break;
      }
      default:
        o.problems.push(`tag ${t.Key} is not an option CA's AWS provider reads`);
    }
  }
  return o;
}
