// What casdoctor reads from Karpenter's controller log (JSON lines, zap's encoder): the records that tell a node's life
// and its end, parsed by src/simulate/providers/karpenter/log (pure) and fed by src/gather (files, pod logs).
// Bounded: at most `limits.records` records are kept (the newest win), each message cut to `limits.messageChars`.

/** Where the log came from. */
export type KarpenterLogSource = { kind: 'file'; path: string } | { kind: 'pod'; namespace: string; pod: string } | { kind: 'text'; name?: string };

/** The lines that tell a node's (or NodeClaim's) life, by the message Karpenter writes (kubernetes-sigs/karpenter, aws/karpenter-provider-aws). */
export type KarpenterLogKind =
  | 'provisionable-pods'
  | 'computed-nodeclaims'
  | 'created-nodeclaim'
  | 'launched-nodeclaim'
  | 'launch-failed'
  | 'registered-nodeclaim'
  | 'initialized-nodeclaim'
  | 'disrupting'
  | 'tainted-node'
  | 'deleted-node'
  | 'deleted-nodeclaim'
  | 'annotated-nodeclaim'
  | 'expired-nodeclaim'
  | 'timeout'
  | 'interruption'
  | 'unhealthy-instance'
  | 'offering-unavailable'
  | 'leader-election'
  | 'error';

/** One node a disruption command takes away ("disrupted-nodes" of "disrupting node(s)"). */
export interface KarpenterDisruptedNode {
  node?: string;
  nodeClaim?: string;
  instanceType?: string;
  capacityType?: string;
}

export interface KarpenterLogRecord {
  /** Epoch ms of the line's own `time`. */
  time: number;
  kind: KarpenterLogKind;
  level: string;
  /** The message, one line, bounded. */
  message: string;
  /** 1-based line number in its source. */
  line: number;
  controller?: string;
  nodeClaim?: string;
  node?: string;
  nodePool?: string;
  providerId?: string;
  instanceId?: string;
  instanceType?: string;
  zone?: string;
  capacityType?: string;
  /** Disruption reason (underutilized, empty, drifted, expired …), a timeout's reason, an ICE code, an interruption kind. */
  reason?: string;
  /** replace | delete (disruption). */
  decision?: string;
  commandId?: string;
  /** v1.9+: the command text ("Underutilized/<id>: replace: nodepools=[…]: […] -> [1 replacement] (savings: $0.12)"). */
  command?: string;
  disrupted?: KarpenterDisruptedNode[];
  replacements?: number;
  replacementTypes?: string;
  podCount?: number;
  /** "ns/name" of the pods a line names (bounded); `podsMore` counts the "and N other(s)". */
  pods?: string[];
  podsMore?: number;
  error?: string;
  ttl?: string;
  timeout?: string;
  /** leader-election: the Lease ("kube-system/karpenter-leader-election") and what happened to it. */
  lease?: string;
  leaderEvent?: 'attempting' | 'acquired' | 'renew-failed';
}

export interface KarpenterLogLimits {
  records: number;
  messageChars: number;
  /** pods kept per record */
  podsPerRecord: number;
  /** malformed-line samples kept */
  samples: number;
}

export const DEFAULT_KARPENTER_LOG_LIMITS: Readonly<KarpenterLogLimits> = { records: 200_000, messageChars: 600, podsPerRecord: 50, samples: 5 };

export interface KarpenterLogSummary {
  source: KarpenterLogSource;
  /** 'json': zap JSON lines; 'prefixed-json': behind an RFC 3339 prefix (`kubectl logs --timestamps`, CRI files); 'unknown': no line recognised. */
  format: 'json' | 'prefixed-json' | 'unknown';
  lines: number;
  /** Lines of Karpenter's envelope that none of the kinds above describes (kept out of `records`). */
  otherLines: number;
  /** Lines that are no Karpenter JSON record at all. */
  unrecognisedLines: number;
  samples: Array<{ line: number; text: string }>;
  records: KarpenterLogRecord[];
  /** Records dropped past `limits.records` (the oldest). */
  dropped: number;
  firstTime?: number;
  lastTime?: number;
  /** The build commit Karpenter stamps on every line ("commit"). */
  commit?: string;
}
