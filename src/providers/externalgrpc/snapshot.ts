// What a snapshot keeps of the provider's ConfigMaps and CA's --cloud-config ConfigMap (externalGrpcConfigMapRefs):
// the provider's config (scrubbed again here) and CA's cloud-config; hook scripts and anything else stay out (they may
// hold SSH passwords). Moved from gather/snapshot-writer.ts, unchanged.
import type { ConfigMap } from '../../model/k8s.js';
import { scrubExternalGrpcCredentials } from './config.js';
import { isExternalGrpcConfigText } from './gather.js';

export function keepExternalGrpcConfigMap(ref: { why: string }, cm: ConfigMap): ConfigMap {
  const isCaCloudConfig = ref.why.startsWith("CA's --cloud-config");
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(cm.data ?? {})) {
    if (typeof v !== 'string') continue;
    if (isExternalGrpcConfigText(v)) data[k] = scrubExternalGrpcCredentials(v).text;
    else if (isCaCloudConfig && /^(address|key|cert|cacert|grpc_timeout)\s*:/m.test(v)) data[k] = v;
  }
  return { ...cm, data };
}
