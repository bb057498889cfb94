#!/usr/bin/env node
// Files over 600 lines and functions over 150 lines in src/ (issue 25's measures), by the TypeScript compiler's own
// parse: every function, method, accessor, constructor and arrow counts, from its first line to its last.
//   node scripts/size-report.mjs            the list, largest first
//   node scripts/size-report.mjs --json     { files: [{ file, lines }], functions: [{ file, line, name, lines }] }
//   --root <dir>                            measure <dir> instead of src/ (test/meta/sizes.test.ts uses it)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const FILE_LIMIT = 600;
export const FUNCTION_LIMIT = 150;

function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return /\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Lines as `wc -l` counts them (a last line without a newline counts too). */
function lineCount(text) {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function nameOf(node, sf) {
  if (node.name) return node.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  // an arrow or function expression takes the name it is bound to (const x = () => …, x: () => …)
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name)
    return parent.name.getText(sf);
  return '(anonymous)';
}

export function measure(root) {
  const files = [];
  const functions = [];
  for (const path of tsFiles(root).sort()) {
    const text = readFileSync(path, 'utf8');
    const file = relative(root, path);
    const lines = lineCount(text);
    if (lines > FILE_LIMIT) files.push({ file, lines });
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const span = end - start + 1;
        if (span > FUNCTION_LIMIT) functions.push({ file, line: start + 1, name: nameOf(node, sf), lines: span });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  files.sort((a, b) => b.lines - a.lines || (a.file < b.file ? -1 : 1));
  functions.sort((a, b) => b.lines - a.lines || (a.file < b.file ? -1 : 1));
  return { files, functions };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--root');
  const root = at >= 0 ? args[at + 1] : join(fileURLToPath(new URL('..', import.meta.url)), 'src');
  const r = measure(root);
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
  else {
    process.stdout.write(`${r.files.length} file(s) over ${FILE_LIMIT} lines\n`);
    for (const f of r.files) process.stdout.write(`  ${String(f.lines).padStart(5)}  ${f.file}\n`);
    process.stdout.write(`${r.functions.length} function(s) over ${FUNCTION_LIMIT} lines\n`);
    for (const f of r.functions) process.stdout.write(`  ${String(f.lines).padStart(5)}  ${f.name} (${f.file}:${f.line})\n`);
  }
}
