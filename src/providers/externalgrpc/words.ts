// How generic checks and commands speak of an externalgrpc node group: the sentences that were the `else` of
// `provider === 'aws'` branches in those files, byte for byte (they named the nodeTemplate, instanceParameter and the
// provider's hooks, so they are this provider's words, not every other provider's).
import type { ExternalGrpcNodeGroup, NodeGroup } from '../../model/node-group.js';
import type { ProviderWords } from '../types.js';
import { GRPC_PLACEMENT_ADVICE } from './wording.js';

/** Narrows a node group to an externalgrpc one (this provider's code; generic code asks the provider's members). */
export function isGrpcGroup(g: NodeGroup): g is ExternalGrpcNodeGroup {
  return g.provider === 'externalgrpc';
}

const GROUP_NOUN = 'externalgrpc node group';

export const externalGrpcWords: ProviderWords = {
  placementAdvice: GRPC_PLACEMENT_ADVICE,
  title: 'externalgrpc',
  checksSubject: 'externalgrpc node groups',
  groupKind: 'NodeGroup',
  groupShort: 'node group',
  groupSource: (name) => `${GROUP_NOUN} ${name}`,
  targetSizeField: 'targetSize',
  minSizeField: 'minSize',
  targetSizeProse: 'target size',
  unhealthyFix: (g, ctx, p) =>
    `Look at ${g.name}'s nodes that are NotReady or instances that never joined (kubectl get nodes; the instance records and their stage in ${p.describeSource(ctx)}); fix what stops them (the provider's after_created_hook.sh, kubelet bootstrap) so new nodes register.`,
  backoffCauses: "cloud quota or capacity, the group's instanceParameter, the provider's SSH hooks",
  noTemplateSource: (g, t, ctx, p) => `${g.name}: ${p.templateSourceLabel(g, t, 'any', ctx)}`,
  noTemplateExpected: "a Ready node of the group, or the provider's template",
  noTemplateFix: `Keep one Ready node in the group (minSize 1) so CA copies it, or fix what keeps the ${GROUP_NOUN}'s template from CA (above).`,
  templateFix: `Give CA's template what the pod needs (the ${GROUP_NOUN}'s nodeTemplate), or stop selecting what only real nodes have.`,
  selectorFix: `Fix the pod's nodeSelector / required node affinity, or add the label to the nodeTemplate of the ${GROUP_NOUN} meant for it.`,
  nodesOutsideGroups: (ctx, p) =>
    `Nodes in no ${GROUP_NOUN} are never removed by CA. Nothing to fix unless the node should belong to one (${p.describeSource(ctx)}).`,
};
