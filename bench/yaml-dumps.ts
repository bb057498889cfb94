// YAML dumps for `npm run bench` (issue 15): `kubectl get pods -A -o yaml` Lists of about 20 MB and 90 MB, and the same
// pods as `-o json`, loaded by `casdoctor why-pending --all --from` in fresh processes; wall time and peak RSS of each.
// Target: a 90 MB YAML dump loads under ~1 GB peak RSS and within ~3x the time of the same data as JSON.
// Standalone: node bench/out/build/bench/yaml-dumps.js [--sizes 20,90] [--runs 1]
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { DUMP_TIME, ROOT } from './generate.js';

const OUT = join(ROOT, 'bench', 'out', 'yaml');
const CLI = join(ROOT, 'bin', 'casdoctor.js');
const DEMO = join(ROOT, 'examples', 'demo');
/** Bumped when the dumps change, so cached ones are rebuilt. */
const VERSION = 1;

export interface YamlDumpResult {
  mb: number;
  pods: number;
  yamlBytes: number;
  jsonBytes: number;
  yaml: { wallS: number; rssMb: number; exit: number };
  json: { wallS: number; rssMb: number; exit: number };
}

/** The demo's pods, copied and renamed until the YAML List is about `mb` MB; written as YAML and as JSON. */
function ensureDumps(mb: number): { yamlDir: string; jsonDir: string; pods: number } {
  const base = join(OUT, `${mb}mb`);
  const yamlDir = join(base, 'yaml');
  const jsonDir = join(base, 'json');
  const stamp = join(base, 'VERSION');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').startsWith(`v${VERSION} `))
    return { yamlDir, jsonDir, pods: Number(readFileSync(stamp, 'utf8').split(' ')[1]) };
  mkdirSync(yamlDir, { recursive: true });
  mkdirSync(jsonDir, { recursive: true });
  const demo = JSON.parse(readFileSync(join(DEMO, 'pods.json'), 'utf8')).items as Array<{ metadata: Record<string, string> }>;
  // a pod prints to ~5.5 KB of YAML on average
  const want = Math.round((mb * 1e6) / 5500);
  const items = Array.from({ length: want }, (_, i) => {
    const p = structuredClone(demo[i % demo.length]);
    p.metadata.name = `${p.metadata.name}-${i}`;
    p.metadata.uid = `${p.metadata.uid}-${i}`;
    return p;
  });
  const list = { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
  // kubectl's layout: sequences not indented under their key, long strings folded at 80 columns
  writeFileSync(join(yamlDir, 'pods.yaml'), stringify(list, { indentSeq: false }));
  writeFileSync(join(jsonDir, 'pods.json'), JSON.stringify(list, null, 4));
  for (const f of ['nodes.json', 'asgs.json', 'launch-template-versions.json']) {
    copyFileSync(join(DEMO, f), join(yamlDir, f));
    copyFileSync(join(DEMO, f), join(jsonDir, f));
  }
  writeFileSync(stamp, `v${VERSION} ${items.length}\n`);
  return { yamlDir, jsonDir, pods: items.length };
}

function timed(dir: string): { wallS: number; rssMb: number; exit: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, CLI, 'why-pending', '--all', '--from', dir, '--now', DUMP_TIME, '--fail-on', 'never', '-o', 'json'],
    { encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: '1' } },
  );
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const rssKb = Number(r.stderr.trim().split('\n').at(-1));
  return { wallS, rssMb: rssKb / 1024, exit: r.status ?? -1 };
}

export function yamlDumpBench(sizesMb: number[] = [20, 90], runs = 1): YamlDumpResult[] {
  const out: YamlDumpResult[] = [];
  for (const mb of sizesMb) {
    const { yamlDir, jsonDir, pods } = ensureDumps(mb);
    const best = (dir: string) => {
      const xs = Array.from({ length: runs }, () => timed(dir));
      return xs.sort((a, b) => a.wallS - b.wallS)[Math.floor(xs.length / 2)];
    };
    const r: YamlDumpResult = {
      mb,
      pods,
      yamlBytes: statSync(join(yamlDir, 'pods.yaml')).size,
      jsonBytes: statSync(join(jsonDir, 'pods.json')).size,
      json: best(jsonDir),
      yaml: best(yamlDir),
    };
    process.stderr.write(
      `yaml dump ${(r.yamlBytes / 1e6).toFixed(0)} MB (${pods} pods): YAML ${r.yaml.wallS.toFixed(2)} s ${r.yaml.rssMb.toFixed(0)} MB RSS exit ${r.yaml.exit}; same as JSON (${(r.jsonBytes / 1e6).toFixed(0)} MB) ${r.json.wallS.toFixed(2)} s ${r.json.rssMb.toFixed(0)} MB RSS\n`,
    );
    out.push(r);
  }
  return out;
}

/** The verdict line for docs/performance.md. */
export function yamlDumpVerdict(results: YamlDumpResult[]): { target: string; measured: string; met: boolean } {
  const measured = results
    .map(
      (r) =>
        `${(r.yamlBytes / 1e6).toFixed(0)} MB YAML: ${r.yaml.wallS.toFixed(2)} s, ${r.yaml.rssMb.toFixed(0)} MB (JSON ${r.json.wallS.toFixed(2)} s, ${r.json.rssMb.toFixed(0)} MB; ${(r.yaml.wallS / r.json.wallS).toFixed(1)}x)`,
    )
    .join('; ');
  const met = results.every((r) => r.yaml.exit === 0 && r.yaml.rssMb < 1024 && r.yaml.wallS <= 3 * r.json.wallS);
  return {
    target: '`why-pending --all --from` a `kubectl get pods -A -o yaml` dump of 20 and 90 MB: peak RSS < 1 GB, within 3x the time of the same pods as JSON',
    measured,
    met,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--sizes');
  const sizes = at >= 0 ? argv[at + 1].split(',').map(Number) : [20, 90];
  const runsAt = argv.indexOf('--runs');
  const results = yamlDumpBench(sizes, runsAt >= 0 ? Number(argv[runsAt + 1]) : 1);
  const v = yamlDumpVerdict(results);
  process.stdout.write(`${JSON.stringify({ results, verdict: v }, null, 2)}\n`);
}
