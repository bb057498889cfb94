// The externalgrpc provider's inputs at the gather edge: a bare nodegroup-config.yaml recognised by content, and every
// ConfigMap value holding the provider's config scrubbed of credentials before RawInputs keeps it (field notes G8).
import type { ExternalGrpcConfigInput } from '../../model/externalgrpc.js';
import type { RawInputs } from '../../model/snapshot.js';
import { scrubExternalGrpcCredentials } from './config.js';

/** Top-level keys of NodeGroupsConfig (node_group.go:92-95); a Kubernetes manifest has apiVersion/kind instead. */
const CONFIG_KEY = /^(?:cloudProviderOption|nodeGroups)\s*:/m;
const MANIFEST_KEY = /^(?:apiVersion|kind)\s*:/m;
/** CA's own status ConfigMap (cluster-autoscaler-status) has a top-level nodeGroups too, beside these. */
const CA_STATUS_KEY = /^(?:autoscalerStatus|clusterWide)\s*:/m;

/** Whether YAML text is the provider's node-group config (nodegroup-config.yaml / NodeGroupsConfig), by content. */
export function isExternalGrpcConfigText(text: string): boolean {
  return CONFIG_KEY.test(text) && !MANIFEST_KEY.test(text) && !CA_STATUS_KEY.test(text);
}

/** A bare nodegroup-config.yaml as RawInputs.externalGrpcConfigs keeps it: scrubbed first, the raw text dropped. */
export function addExternalGrpcConfigFile(raw: RawInputs, path: string, text: string): void {
  const input: ExternalGrpcConfigInput = { source: { kind: 'file', path }, text: scrubExternalGrpcCredentials(text).text };
  (raw.externalGrpcConfigs ??= []).push(input);
}

/** kubectl apply's copy of the whole object, its data (the provider's credentials) included. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Replaces, in place, every ConfigMap value that is the provider's config by its scrubbed text, and drops the
 * last-applied annotation of such a ConfigMap (nothing reads it; it repeats the unscrubbed data).
 */
export function scrubExternalGrpcConfigMaps(raw: RawInputs): void {
  for (const cm of raw.configMaps) {
    const data = cm.data;
    if (!data) continue;
    let scrubbed = false;
    for (const [k, v] of Object.entries(data)) {
      if (typeof v === 'string' && isExternalGrpcConfigText(v)) {
        data[k] = scrubExternalGrpcCredentials(v).text;
        scrubbed = true;
      }
    }
    if (scrubbed && cm.metadata.annotations && Object.hasOwn(cm.metadata.annotations, LAST_APPLIED)) delete cm.metadata.annotations[LAST_APPLIED];
  }
}
