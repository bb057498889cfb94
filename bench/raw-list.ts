// The raw floor for live gathering: the resource types casdoctor lists, paginated the same way (limit 500, continue
// tokens, all types in parallel), each page JSON.parse'd and its items kept, and nothing else. Its own process.
// Usage: node bench/out/build/bench/raw-list.js <kubeconfig>
import { readFileSync } from 'node:fs';
import https from 'node:https';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const server: string = config.clusters[0].cluster.server;
const ca = Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64');
const token: string = config.users[0].user.token;
const agent = new https.Agent({ ca, keepAlive: true });

const PATHS = [
  '/api/v1/pods',
  '/api/v1/nodes',
  '/api/v1/events',
  '/apis/policy/v1/poddisruptionbudgets',
  '/api/v1/persistentvolumeclaims',
  '/api/v1/persistentvolumes',
  '/apis/storage.k8s.io/v1/storageclasses',
  '/apis/apps/v1/replicasets',
  '/apis/apps/v1/deployments',
  '/apis/apps/v1/statefulsets',
  '/apis/apps/v1/daemonsets',
  '/apis/batch/v1/jobs',
  '/apis/scheduling.k8s.io/v1/priorityclasses',
  '/api/v1/serviceaccounts',
  '/api/v1/configmaps?fieldSelector=metadata.name%3Dcluster-autoscaler-status',
];

function get(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get(`${server}${path}`, { agent, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function list(path: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let cont = '';
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = JSON.parse(await get(`${path}${sep}limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`));
    items.push(...page.items);
    cont = page.metadata?.continue ?? '';
  } while (cont);
  return items;
}

const lists = await Promise.all(PATHS.map(list));
agent.destroy();
process.stdout.write(`${JSON.stringify({ objects: lists.reduce((n, l) => n + l.length, 0) })}\n`);
