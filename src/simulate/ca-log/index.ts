// Cluster Autoscaler's log as an input: envelope detection, the message-template table, the bounded incremental parser.
export { type EnvelopeLine, parseEnvelope } from './envelope.js';
export { type CaLogParser, type CaLogParserOptions, createCaLogParser, normalizeCaLogMessage } from './parser.js';
export {
  type AwsErrorMatch,
  blockingPodOf,
  CA_LOG_TEMPLATES,
  type CaLogSink,
  type CaLogTemplate,
  type CaLogTemplateKind,
  detectAwsError,
  splitReasons,
} from './templates.js';
