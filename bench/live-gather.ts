// One live gathering by the built casdoctor (dist/), as its own process so the bench can time it and read its peak RSS:
// every Kubernetes kind and the AWS calls, against the loopback servers the bench started. Prints object counts.
// Usage: node bench/out/build/bench/live-gather.js <kubeconfig> <aws-endpoint> [all|read|why-pending]
// (fields: what is kept of each listed object; default all, whole objects)
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './generate.js';

const [kubeconfig, awsEndpoint, fields] = process.argv.slice(2) as [string, string, 'all' | 'read' | 'why-pending' | undefined];
const { gatherLive } = (await import(pathToFileURL(join(ROOT, 'dist', 'gather', 'live.js')).href)) as typeof import(
  '../src/gather/live.js'
);
const got = await gatherLive({
  kubeconfig,
  region: 'us-east-1',
  requestTimeoutMs: 300_000,
  awsEndpoint,
  awsCredentials: { accessKeyId: 'AKIDCASDOCTORBENCH', secretAccessKey: 'casdoctor-bench-secret' },
  ...(fields ? { fields } : {}),
});
const counts = Object.fromEntries(
  Object.entries(got)
    .filter(([k, v]) => Array.isArray(v) && v.length > 0 && !['gaps', 'warnings', 'sources'].includes(k))
    .map(([k, v]) => [k, (v as unknown[]).length]),
);
process.stdout.write(`${JSON.stringify({ counts, gaps: got.gaps.map((g) => g.detail) })}\n`);
