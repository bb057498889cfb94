// `casdoctor record`'s watches: for each resource, list (paged) then watch from the list's resourceVersion; a watch
// that ends is resumed from the last version seen (bookmarks included); a version the server no longer has (410 Gone,
// or an ERROR event with code 410) is listed again. Read-only: GET with list and watch only. Every line is bounded.
import http from 'node:http';
import https from 'node:https';
import type { Target } from '../gather/kube-client.js';
import { getWithRetry, statusOf } from '../gather/kube-client.js';
import type { Journal, JournalRecord } from './record-journal.js';

export interface WatchSpec {
  /** The journal's name for it, as history reads it back: events, nodes, pods, nodeclaims, configmaps. */
  resource: string;
  /** /api/v1/events, /apis/karpenter.sh/v1/nodeclaims … */
  path: string;
  fieldSelector?: string;
}

export const RECORD_RESOURCES: readonly WatchSpec[] = [
  { resource: 'events', path: '/api/v1/events' },
  { resource: 'nodes', path: '/api/v1/nodes' },
  { resource: 'pods', path: '/api/v1/pods' },
  { resource: 'nodeclaims', path: '/apis/karpenter.sh/v1/nodeclaims' },
  { resource: 'configmaps', path: '/api/v1/namespaces/kube-system/configmaps', fieldSelector: 'metadata.name=cluster-autoscaler-status' },
];

/** One watch event's line; a longer one is cut off and skipped (an object is a few KB). */
const MAX_LINE_BYTES = 4 << 20;
const PAGE = 500;
/** The server ends a watch after this; it is then resumed (kube-apiserver's default is 30–60 min). */
const WATCH_TIMEOUT_S = 300;

export interface WatchHooks {
  /** Called after each record is appended (tests wait on it instead of sleeping). */
  onRecord?(r: JournalRecord): void;
  /** Called when a watch stream is open, after a list or a resume. */
  onWatching?(resource: string, from: string): void;
  /** Called when a resource is not served (404: Karpenter not installed) or refused (403): it is then not watched. */
  onUnavailable?(resource: string, why: string): void;
  /** Waits before retrying after a network error (default: 1 s, growing to 30 s). */
  backoff?(attempt: number, signal: AbortSignal): Promise<void>;
}

class Gone extends Error {}

/** Trims an object to what `history` reads: no managedFields, and of pods only their scheduling state. */
export function trimObject(resource: string, o: Record<string, unknown>): Record<string, unknown> {
  const meta = { ...((o.metadata as Record<string, unknown>) ?? {}) };
  delete meta.managedFields;
  if (resource === 'pods') {
    const spec = (o.spec as Record<string, unknown>) ?? {};
    const status = (o.status as Record<string, unknown>) ?? {};
    return {
      metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, creationTimestamp: meta.creationTimestamp, ...(meta.deletionTimestamp ? { deletionTimestamp: meta.deletionTimestamp } : {}), ownerReferences: meta.ownerReferences },
      spec: { ...(spec.nodeName ? { nodeName: spec.nodeName } : {}) },
      status: { phase: status.phase, conditions: status.conditions },
    };
  }
  if (resource === 'nodes') {
    const status = (o.status as Record<string, unknown>) ?? {};
    return { metadata: meta, spec: o.spec, status: { conditions: status.conditions } };
  }
  return { ...o, metadata: meta };
}

/** A 53-bit digest of the trimmed object (FNV-1a, two lanes): the last one per object is kept, never the object. */
function sig(o: Record<string, unknown>): number {
  const s = JSON.stringify(o);
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

export class ResourceWatcher {
  /** The last trimmed object written per uid: a MODIFIED that changes nothing history reads is not written again. */
  private last = new Map<string, number>();

  constructor(
    private readonly target: Target,
    private readonly spec: WatchSpec,
    private readonly journal: Journal,
    private readonly hooks: WatchHooks,
    private readonly now: () => number,
  ) {}

  private write(type: JournalRecord['type'], raw: Record<string, unknown>): void {
    const object = trimObject(this.spec.resource, raw);
    const meta = (object.metadata ?? {}) as { uid?: string; name?: string; namespace?: string };
    const key = meta.uid ?? `${meta.namespace ?? ''}/${meta.name ?? ''}`;
    const s = sig(object);
    if (type !== 'DELETED' && this.last.get(key) === s) return;
    if (type === 'DELETED') this.last.delete(key);
    else if (this.last.size < 200_000) this.last.set(key, s);
    const r: JournalRecord = { at: new Date(this.now()).toISOString(), type, resource: this.spec.resource, object };
    this.journal.append(r);
    this.hooks.onRecord?.(r);
  }

  private query(extra: Record<string, string>): string {
    const q = new URLSearchParams({ ...(this.spec.fieldSelector ? { fieldSelector: this.spec.fieldSelector } : {}), ...extra });
    return `${this.spec.path}?${q.toString()}`;
  }

  /** Lists every page; returns the list's resourceVersion, or undefined when the resource is not served. */
  private async list(): Promise<string | undefined> {
    let cont: string | undefined;
    for (let pages = 0; pages < 10_000; pages++) {
      const pq = this.query({ limit: String(PAGE), ...(cont ? { continue: cont } : {}) });
      const res = await getWithRetry(this.target, pq, `GET ${pq}`);
      if (res.status === 404 || res.status === 403) {
        this.hooks.onUnavailable?.(this.spec.resource, `${res.status} ${statusOf(res).message ?? ''}`.trim());
        return undefined;
      }
      if (res.status === 410 && cont) {
        cont = undefined; // the continue token expired: list again from the start
        continue;
      }
      if (res.status !== 200) throw new Error(`list ${this.spec.resource}: ${res.status} ${statusOf(res).message ?? ''}`);
      const body = JSON.parse(res.body) as { metadata?: { resourceVersion?: string; continue?: string }; items?: Array<Record<string, unknown>> };
      for (const item of body.items ?? []) this.write('LISTED', item);
      cont = body.metadata?.continue || undefined;
      if (!cont) return body.metadata?.resourceVersion ?? '0';
    }
    throw new Error(`list ${this.spec.resource}: more than 10,000 pages`);
  }

  /** One watch stream from rv; resolves with the last version seen when the server ends it, rejects Gone on 410. */
  private stream(rv: string, signal: AbortSignal): Promise<string> {
    const url = new URL(this.target.server + this.query({ watch: '1', resourceVersion: rv, allowWatchBookmarks: 'true', timeoutSeconds: String(WATCH_TIMEOUT_S) }));
    const mod = url.protocol === 'http:' ? http : https;
    let last = rv;
    return new Promise((resolve, reject) => {
      // stopped while listing: no new watch
      if (signal.aborted) return resolve(last);
      const headers = { ...this.target.headers, 'Accept-Encoding': 'identity' };
      const req = mod.request(url, { method: 'GET', agent: this.target.agent, headers }, (res) => {
        if (res.statusCode === 410) {
          res.resume();
          return reject(new Gone());
        }
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`watch ${this.spec.resource}: ${res.statusCode}`));
        }
        this.hooks.onWatching?.(this.spec.resource, rv);
        let rest = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          rest += chunk;
          for (;;) {
            const nl = rest.indexOf('\n');
            if (nl < 0) break;
            const l = rest.slice(0, nl);
            rest = rest.slice(nl + 1);
            if (l.trim() === '') continue;
            try {
              const e = JSON.parse(l) as { type?: string; object?: Record<string, unknown> };
              const obj = e.object ?? {};
              const v = (obj.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
              if (e.type === 'ERROR') {
                if ((obj as { code?: number }).code === 410) {
                  req.destroy();
                  return reject(new Gone());
                }
                continue;
              }
              if (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED') this.write(e.type, obj);
              if (v) last = v;
            } catch {
              /* a broken line: skipped, the watch goes on */
            }
          }
          if (rest.length > MAX_LINE_BYTES) rest = '';
        });
        res.on('end', () => resolve(last));
        res.on('error', () => resolve(last));
        res.on('aborted', () => resolve(last));
      });
      req.setTimeout((WATCH_TIMEOUT_S + 30) * 1000, () => req.destroy());
      req.on('error', (e) => (signal.aborted ? resolve(last) : reject(e)));
      signal.addEventListener('abort', () => req.destroy(), { once: true });
      req.end();
    });
  }

  /** Lists (unless resuming), then watches until the signal stops it. */
  async run(signal: AbortSignal): Promise<void> {
    let rv = this.journal.version(this.spec.resource);
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (rv === undefined) {
          rv = await this.list();
          if (rv === undefined) return;
          this.journal.setVersion(this.spec.resource, rv);
        }
        const reached = await this.stream(rv, signal);
        failures = 0;
        if (reached !== rv) this.journal.setVersion(this.spec.resource, reached);
        rv = reached;
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof Gone) {
          // the version is gone from the server's watch cache: what happened between is only in a fresh list
          rv = undefined;
          this.journal.setVersion(this.spec.resource, undefined);
          continue;
        }
        failures++;
        await (this.hooks.backoff ?? defaultBackoff)(failures, signal);
      }
    }
  }
}

function defaultBackoff(attempt: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, Math.min(30_000, 1000 * 2 ** Math.min(attempt - 1, 5)));
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}
