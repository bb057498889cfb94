// Reading the files casdoctor's flags name (--config, --node-groups, --eksctl, -f): one error shape, with file:line:col.
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
import { aliasBomb, isAliasBomb, isStackOverflow, MAX_YAML_ALIASES, readRegularFile, tooDeep } from './input-files.js';

/**
 * The text of a file a flag names. Only a regular file is read (a FIFO would block forever): anything else, and a file
 * that cannot be read, is an InputError "<flag> <path>: <problem>" (no such file or directory, permission denied, ...).
 */
export async function readFlagFile(flag: string, path: string): Promise<string> {
  return readRegularFile(flag, path);
}

/** A YAML syntax error as an InputError at file:line:col, with the first line of the parser's message. */
export function malformedYaml(err: YAMLError, file: string): InputError {
  if (isStackOverflow(err) || /call stack/i.test(err.message)) return tooDeep(file);
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
  // the caller turns the Document into JS (toJS / getIn): aliases are resolved there, so bound them here first
  checkAliases(doc, file);
  const lineOf = (path: Array<string | number>): number => {
    const node = doc.getIn(path, true) as { range?: number[] } | undefined;
    return node?.range ? lineCounter.linePos(node.range[0]).line : 1;
  };
  return { doc, lineOf };
}

/** Throws an InputError when resolving the document's aliases would expand beyond MAX_YAML_ALIASES (a "billion laughs"). */
export function checkAliases(doc: Document.Parsed, file: string): void {
  try {
    doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    if (isAliasBomb(e)) throw aliasBomb(file);
    if (isStackOverflow(e)) throw tooDeep(file);
    throw e;
  }
}
