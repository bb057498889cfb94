// Karpenter's controller log as an input: recognition (sniffKarpenterLog) and the bounded incremental parser.
export { createKarpenterLogParser, type KarpenterLogParser, sniffKarpenterLog, splitPrettySlice } from './parser.js';
