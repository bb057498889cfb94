// What CA's externalgrpc client makes of the provider's NodeGroupGetOptions answer, per CA minor. The provider
// (wrapper/wrapper.go:319-354 @ f792442) answers CA's own defaults verbatim when autoscalingOptions is nil (unknown
// proto fields survive the round trip) and otherwise a new message with fields 1-4 only.
import type { GrpcNodeGroupSpec, GrpcSchemaEra } from '../../model/externalgrpc.js';

/** CA minor whose client first reads MaxNodeProvisionTime (field 5) with `.Duration` on a possibly nil pointer
 * (CA commit 6df52ec0a4, externalgrpc_node_group.go 1.29.0:296). */
export const READS_FIELD5_MINOR = 29;
/** CA minor that replaced fields 3-5 by google.protobuf.Duration fields 8-10 (1.35.0 externalgrpc_node_group.go:304-326). */
export const READS_FIELDS_8_10_MINOR = 35;
/** First minor with a per-group MaxNodeProvisionTime (config/autoscaling_options.go 1.27). */
export const PER_GROUP_PROVISION_TIME_MINOR = 27;
/** First minor with per-group IgnoreDaemonSetsUtilization (processors/nodegroupconfig 1.28). */
export const PER_GROUP_IGNORE_DS_MINOR = 28;
/** First minor whose client copies IgnoreDaemonSetsUtilization (field 7) from the answer (1.33.0
 * externalgrpc_node_group.go:309); 1.28-1.32 build the options without it, so the per-group value is false. */
export const READS_IGNORE_DS_MINOR = 33;
/** First minor with per-group MaxNodeStartupTime (clusterstate.go 1.35 updateReadinessStats). */
export const PER_GROUP_STARTUP_TIME_MINOR = 35;

export interface CaDefaults {
  scaleDownUtilizationThreshold: number;
  scaleDownGpuUtilizationThreshold: number;
  scaleDownUnneededTimeMs: number;
  scaleDownUnreadyTimeMs: number;
  maxNodeProvisionTimeMs: number;
  maxNodeStartupTimeMs: number;
  ignoreDaemonSetsUtilization: boolean;
  zeroOrMaxNodeScaling: boolean;
}

export interface GrpcOptionsAsCaSees {
  /** 'defaults': CA's flags come back unchanged; 'provider': the group's autoscalingOptions; 'panic': CA crashes. */
  source: 'defaults' | 'provider' | 'panic';
  values: CaDefaults;
  /** Options CA ends up with at 0/false although the flags say otherwise, with why. */
  zeroed: Array<{ option: keyof CaDefaults; why: string }>;
  /** CA 1.29-1.34 dereferences the nil MaxNodeProvisionTime of the provider's answer (nil-pointer panic). */
  panics: boolean;
  facts: string[];
}

/**
 * The options CA of `minor` gets for the group. `era` is the provider's proto era (pre-1.35 for every known image of
 * this provider); a '1.35+' provider is assumed to answer every field CA reads.
 */
export function grpcOptionsAsCaSees(
  spec: GrpcNodeGroupSpec | undefined,
  minor: number,
  defaults: CaDefaults,
  era: GrpcSchemaEra,
): GrpcOptionsAsCaSees {
  const values: CaDefaults = { ...defaults };
  const zeroed: GrpcOptionsAsCaSees['zeroed'] = [];
  const facts: string[] = [];
  const zero = (option: keyof CaDefaults, why: string) => {
    const before = values[option];
    if (option === 'ignoreDaemonSetsUtilization' || option === 'zeroOrMaxNodeScaling') values[option] = false;
    else values[option] = 0;
    if (before) zeroed.push({ option, why });
  };
  const ao = spec?.autoscalingOptions;
  const newEra = era === '1.35+';

  // 1.27-1.28: the client never copies MaxNodeProvisionTime (or IgnoreDaemonSetsUtilization) into the options it
  // returns, for any non-nil answer -- defaults included (fixed by 6df52ec0a4 in 1.29)
  if (minor >= PER_GROUP_PROVISION_TIME_MINOR && minor < READS_FIELD5_MINOR) {
    zero('maxNodeProvisionTimeMs', `CA 1.${minor}'s externalgrpc GetOptions does not read MaxNodeProvisionTime`);
  }
  // 1.28-1.32 never copy IgnoreDaemonSetsUtilization either (1.32.7 externalgrpc_node_group.go:299-306), whatever
  // --ignore-daemonsets-utilization says; 1.33.0:309 is the first to read field 7
  if (minor >= PER_GROUP_IGNORE_DS_MINOR && minor < READS_IGNORE_DS_MINOR) {
    zero('ignoreDaemonSetsUtilization', `CA 1.${minor}'s externalgrpc GetOptions does not read IgnoreDaemonSetsUtilization (first read in 1.33)`);
  }
  // 1.35+: no proto field for MaxNodeStartupTime, so every non-nil answer yields 0 (G11)
  if (minor >= PER_GROUP_STARTUP_TIME_MINOR) {
    zero('maxNodeStartupTimeMs', 'the externalgrpc proto has no MaxNodeStartupTime field; CA 1.35+ reads 0 from any answer');
  }
  if (!ao) {
    facts.push('autoscalingOptions is nil: the provider answers CA\'s defaults unchanged (wrapper.go:336-340)');
    return { source: 'defaults', values, zeroed, panics: false, facts };
  }

  if (!newEra && minor >= READS_FIELD5_MINOR && minor < READS_FIELDS_8_10_MINOR) {
    facts.push(
      `CA 1.${minor} reads pbOpts.GetMaxNodeProvisionTime().Duration; this provider never sets field 5, so CA panics with a nil-pointer dereference on the first GetOptions call for "${spec?.id ?? ''}"`,
    );
    return { source: 'panic', values, zeroed, panics: true, facts };
  }
  const missing = (['scaleDownUtilizationThreshold', 'scaleDownGpuUtilizationThreshold', 'scaleDownUnneededTime', 'scaleDownUnreadyTime'] as const).filter(
    (k) => !ao.present.includes(k),
  );
  const why = (k: string) => `autoscalingOptions.${k} is not set: the provider sends Go's zero value (wrapper.go:342-353)`;
  values.scaleDownUtilizationThreshold = ao.scaleDownUtilizationThreshold;
  values.scaleDownGpuUtilizationThreshold = ao.scaleDownGpuUtilizationThreshold;
  if (missing.includes('scaleDownUtilizationThreshold') && defaults.scaleDownUtilizationThreshold) {
    zeroed.push({ option: 'scaleDownUtilizationThreshold', why: why('scaleDownUtilizationThreshold') });
  }
  if (missing.includes('scaleDownGpuUtilizationThreshold') && defaults.scaleDownGpuUtilizationThreshold) {
    zeroed.push({ option: 'scaleDownGpuUtilizationThreshold', why: why('scaleDownGpuUtilizationThreshold') });
  }
  if (minor >= READS_FIELDS_8_10_MINOR && !newEra) {
    // 1.35 reads durations from fields 8-10 only; the provider fills 3-4
    zero('scaleDownUnneededTimeMs', `CA 1.${minor} reads scaleDownUnneededDuration (field 8); this provider fills field 3`);
    zero('scaleDownUnreadyTimeMs', `CA 1.${minor} reads scaleDownUnreadyDuration (field 9); this provider fills field 4`);
    zero('maxNodeProvisionTimeMs', `CA 1.${minor} reads MaxNodeProvisionDuration (field 10); this provider never sets it`);
  } else {
    values.scaleDownUnneededTimeMs = ao.scaleDownUnneededTimeMs;
    values.scaleDownUnreadyTimeMs = ao.scaleDownUnreadyTimeMs;
    if (missing.includes('scaleDownUnneededTime') && defaults.scaleDownUnneededTimeMs) {
      zeroed.push({ option: 'scaleDownUnneededTimeMs', why: why('scaleDownUnneededTime') });
    }
    if (missing.includes('scaleDownUnreadyTime') && defaults.scaleDownUnreadyTimeMs) {
      zeroed.push({ option: 'scaleDownUnreadyTimeMs', why: why('scaleDownUnreadyTime') });
    }
  }
  if (minor >= READS_IGNORE_DS_MINOR && !newEra) {
    // fields 6-7 are read from 1.33; the provider's own message leaves them false
    zero('ignoreDaemonSetsUtilization', 'the provider\'s answer leaves ignoreDaemonSetsUtilization (field 7) false');
    zero('zeroOrMaxNodeScaling', 'the provider\'s answer leaves zeroOrMaxNodeScaling (field 6) false');
  }
  return { source: 'provider', values, zeroed, panics: false, facts };
}
