// Reading the files casdoctor's flags name (--config, --node-groups, --eksctl, -f): one error shape, with file:line:col.
import { readFile } from 'node:fs/promises';
import {
  type Document,
  type DocumentOptions,
  LineCounter,
  type ParseOptions,
  parseDocument,
  type SchemaOptions,
  type YAMLError,
} from 'yaml';
import { InputError } from '../model/errors.js';

/** The text of a file a flag names; a file that cannot be read is an InputError "<flag> <path>: no such file". */
export async function readFlagFile(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    throw new InputError(`${flag} ${path}: no such file`, path);
  }
}

/** A YAML syntax error as an InputError at file:line:col, with the first line of the parser's message. */
export function malformedYaml(err: YAMLError, file: string): InputError {
  const pos = err.linePos?.[0];
  return new InputError(
    `${file}${pos ? `:${pos.line}:${pos.col}` : ''}: malformed YAML: ${err.message.split('\n')[0]}`,
    file,
    pos ? { line: pos.line, column: pos.col } : undefined,
  );
}

export interface YamlFile {
  doc: Document.Parsed;
  /** The line a node starts on (1 when the path is absent), for file:line in errors and findings. */
  lineOf(path: Array<string | number>): number;
}

/** Parses one YAML document; its first syntax error throws (see malformedYaml). */
export function parseYamlFile(
  text: string,
  file: string,
  options: ParseOptions & DocumentOptions & SchemaOptions = {},
): YamlFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...options, lineCounter });
  const err = doc.errors[0];
  if (err) throw malformedYaml(err, file);
  const lineOf = (path: Array<string | number>): number => {
    const node = doc.getIn(path, true) as { range?: number[] } | undefined;
    return node?.range ? lineCounter.linePos(node.range[0]).line : 1;
  };
  return { doc, lineOf };
}
