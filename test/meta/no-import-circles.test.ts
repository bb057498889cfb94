// No import circles in src/: every edge counts, value or type (`import type`), static (`import … from`, `export … from`,
// `import './x.js'`) or dynamic (`import('./x.js')`). A circle is a strongly connected component of the import graph
// (Tarjan); the failure names its files and one loop through them. architecture-review.md §1.2 has why.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const SRC = join(root, 'src');

/** The relative module specifiers a file imports, by TypeScript's own scanner (comments and strings are not imports). */
export function importSpecifiers(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((s) => s.startsWith('.'));
}

/** A specifier as the file it names: './x.js' is x.ts (NodeNext spelling), else x.tsx, x/index.ts. */
function resolveSpecifier(from: string, spec: string, files: ReadonlySet<string>): string | undefined {
  const base = resolve(dirname(from), spec);
  const stem = base.replace(/\.(js|ts|mjs|cjs)$/, '');
  return [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(base, 'index.ts')].find((c) => files.has(c));
}

/** The import graph of a set of files: each file and the files it imports. */
export function importGraph(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  const files = new Set(sources.keys());
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const to = importSpecifiers(text)
      .map((s) => resolveSpecifier(file, s, files))
      .filter((f): f is string => f !== undefined);
    graph.set(file, [...new Set(to)].sort());
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one file, or one file that imports itself. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** One loop through a circle's files, from its first file back to it (breadth first: a shortest one). */
export function loopThrough(scc: readonly string[], graph: ReadonlyMap<string, readonly string[]>): string[] {
  const inside = new Set(scc);
  const start = scc[0];
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = prev.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

function srcSources(): Map<string, string> {
  const sources = new Map<string, string>();
  for (const e of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && /\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) {
      const file = join(e.parentPath, e.name);
      sources.set(file, readFileSync(file, 'utf8'));
    }
  }
  return sources;
}

function describeCircles(graph: ReadonlyMap<string, readonly string[]>, base: string): string[] {
  const rel = (f: string) => relative(base, f);
  return circles(graph).map(
    (scc) => `${scc.length} files: ${scc.map(rel).join(', ')}\n    e.g. ${loopThrough(scc, graph).map(rel).join(' -> ')}`,
  );
}

describe('import circles', () => {
  it('src/ has none (value or type edges, static or dynamic imports)', () => {
    const graph = importGraph(srcSources());
    expect(graph.size).toBeGreaterThan(200);
    expect(describeCircles(graph, root)).toEqual([]);
  });

  it('finds a circle closed by any kind of import, and names its files and a loop', () => {
    const dir = join(root, 'src', 'planted');
    const kinds = [
      `import { b } from './b.js';`,
      `import type { B } from './b.js';`,
      `export { b } from './b.js';`,
      `export type * from './b.js';`,
      `import './b.js';`,
      `const m = await import('./b.js');`,
      `import {\n  type B,\n  b,\n} from './b.js';`,
    ];
    for (const a of kinds) {
      const sources = new Map([
        [join(dir, 'a.ts'), a],
        [join(dir, 'b.ts'), `import { c } from './sub/c.js';`],
        [join(dir, 'sub', 'c.ts'), `// import { a } from '../a.js' is only a comment\nimport { a } from '../index.js';`],
        [join(dir, 'index.ts'), `export * from './a.js';`],
        [join(dir, 'd.ts'), `import { a } from './a.js'; const s = "import('./d.js')";`],
      ]);
      expect(describeCircles(importGraph(sources), dir), a).toEqual([
        '4 files: a.ts, b.ts, index.ts, sub/c.ts\n    e.g. a.ts -> b.ts -> sub/c.ts -> index.ts -> a.ts',
      ]);
    }
  });

  it('finds a file that imports itself and no circle in a chain', () => {
    const dir = join(root, 'src', 'planted');
    const self = new Map([[join(dir, 'a.ts'), `import type { A } from './a.js';`]]);
    expect(describeCircles(importGraph(self), dir)).toEqual(['1 files: a.ts\n    e.g. a.ts -> a.ts']);
    const chain = new Map([
      [join(dir, 'a.ts'), `import { b } from './b.js';`],
      [join(dir, 'b.ts'), `import { c } from './c.js';`],
      [join(dir, 'c.ts'), `export const c = 1;`],
    ]);
    expect(describeCircles(importGraph(chain), dir)).toEqual([]);
  });
});
