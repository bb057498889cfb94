// The registry of CA cloud providers casdoctor models: CA's --cloud-provider picks one (providerFor).
import type { CaConfig } from '../model/ca-config.js';
import type { DataKind, RawInputs } from '../model/snapshot.js';
import { awsProvider } from './aws/index.js';
import { hasExternalGrpcInput } from './externalgrpc/deployment.js';
import { externalGrpcProvider } from './externalgrpc/index.js';
import type { NodeGroupProvider } from './types.js';

export type { NodeGroupProvider, ProviderContext } from './types.js';

/** One entry per modelled provider; a new provider is one line here (and its folder). */
const PROVIDERS = new Map<string, NodeGroupProvider>([
  ['aws', awsProvider],
  ['externalgrpc', externalGrpcProvider],
]);

/**
 * Adds a provider that lives outside src/ (test/providers' stub provider proves the seam with it); returns the function
 * that removes it again. src/ registers its providers in PROVIDERS above.
 */
export function registerProvider(provider: NodeGroupProvider): () => void {
  if (PROVIDERS.has(provider.id)) throw new Error(`provider ${provider.id} is registered already`);
  PROVIDERS.set(provider.id, provider);
  return () => void PROVIDERS.delete(provider.id);
}

/** Whether the input holds a provider's own config although CA was not found (externalgrpc: nodegroup-status / nodegroup-config.yaml). */
function inferredProvider(raw: RawInputs): string | undefined {
  return hasExternalGrpcInput(raw) && raw.autoScalingGroups.length === 0 ? 'externalgrpc' : undefined;
}

/**
 * The provider CA runs with: --cloud-provider (externalgrpc, aws); CA not found: externalgrpc when the input holds its
 * config and no ASGs, else aws. Any other value, or a provider not registered yet, behaves as aws.
 */
export function providerFor(ca: CaConfig, raw: RawInputs): NodeGroupProvider {
  const flag = ca.found ? ca.flags.cloudProvider.value : undefined;
  const id = flag !== undefined && PROVIDERS.has(flag) ? flag : ca.found ? 'aws' : (inferredProvider(raw) ?? 'aws');
  return PROVIDERS.get(id) ?? awsProvider;
}

/** Whether casdoctor models CA's --cloud-provider value (any other is simulated as aws, with a note). */
export function isModelledProvider(ca: CaConfig): boolean {
  return !ca.found || PROVIDERS.has(ca.flags.cloudProvider.value);
}

/** The ids of the registered providers, in registration order. */
export function providerIds(): string[] {
  return [...PROVIDERS.keys()];
}

/** The registered provider with this id (a group's `provider`, a check's `meta.providers` entry), if any. */
export function providerById(id: string): NodeGroupProvider | undefined {
  return PROVIDERS.get(id);
}

/** A kind another provider lists its groups from, that this one does not read (ASGs under externalgrpc). */
export function isOtherProvidersGroupKind(kind: DataKind, provider: NodeGroupProvider): boolean {
  if (provider.groupKinds.includes(kind)) return false;
  return [...PROVIDERS.values()].some((p) => p.groupKinds.includes(kind));
}
