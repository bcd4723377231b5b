// A `read` over the workspace folders: each path is read under the fence of the folder it belongs
// to (readerd fences a connection to one root at a time), a request whose paths lie in several
// folders is sent as one request per folder and merged back. Plain Node: no vscode import.

import { ReaderdError } from './client';
import { expandedPath, mergeResults, noticeMessage, restorePaths, sourcesOf } from './merge';
import { ErrorCode, FormattedReadResult, PathSpec, ReadParams, ReadResult } from '../protocol';
import { WorkspaceRoots } from '../roots';

/** Sends one request under the fence of `root` (undefined: no workspace folder). */
export type RootSender = (params: ReadParams, root: string | undefined) => Promise<ReadResult | FormattedReadResult>;

function pathOf(spec: PathSpec): string {
  return typeof spec === 'string' ? spec : spec.path;
}

function withPath(spec: PathSpec, sent: string): PathSpec {
  return typeof spec === 'string' ? sent : { ...spec, path: sent };
}

/**
 * Reads `params.paths`, each under the fence of its folder (see WorkspaceRoots.locate). The
 * result is the one a single request would give: files in order, paths as written. A request
 * spanning several folders needs the `xml` format (the only one merged); others are refused with
 * a `-32602` ReaderdError.
 */
export async function readInRoots(params: ReadParams, roots: WorkspaceRoots, send: RootSender): Promise<ReadResult | FormattedReadResult> {
  const given = params.paths.map(pathOf);
  const groups = new Map<string, { root: string | undefined; base: string | undefined; indices: number[]; paths: PathSpec[] }>();
  let rewritten = false;
  params.paths.forEach((spec, i) => {
    const where = roots.locate(given[i]!, params.cwd);
    const key = `${where.root ?? ''}\0${where.base ?? ''}`;
    let group = groups.get(key);
    if (!group) {
      group = { root: where.root, base: where.base, indices: [], paths: [] };
      groups.set(key, group);
    }
    group.indices.push(i);
    group.paths.push(withPath(spec, where.sent));
    rewritten ||= where.sent !== given[i];
  });
  const xml = params.format === undefined || params.format === 'xml';
  const parts = [...groups.values()];
  if (parts.length === 1) {
    const only = parts[0]!;
    const result = await send({ ...params, cwd: only.base, paths: only.paths }, only.root);
    if (!rewritten) {
      return result;
    }
    // Another format's shape keeps the paths as sent; its files say them as written.
    const sent = only.paths.map(pathOf);
    if (xml) {
      return restorePaths(result as ReadResult, given, sent);
    }
    const sources = sourcesOf(result.files, given.length);
    return {
      ...result,
      files: result.files.map((f, j) => {
        const i = sources[j]!;
        return { ...f, path: f.from !== undefined ? expandedPath(f.path, sent[i]!, given[i]!) : given[i]! };
      }),
      notices: result.notices?.map((n) => ({ ...n, path: given[n.from] ?? n.path, message: noticeMessage(n.message, sent[n.from] ?? n.path, given[n.from] ?? n.path) })),
    };
  }
  if (!xml) {
    throw new ReaderdError('rpc', `readerd: the paths lie in ${parts.length} workspace folders; the ${params.format} format ` +
      'can be read from one folder at a time (the xml format merges them)', ErrorCode.InvalidParams);
  }
  const results = await Promise.all(parts.map((g) => send({ ...params, cwd: g.base, paths: g.paths }, g.root)));
  return mergeResults(parts.map((g, p) => ({ result: results[p] as ReadResult, indices: g.indices, sent: g.paths.map(pathOf) })), given);
}

/** Where a request that cannot be split must go: its one folder, and the paths to send there. */
export interface OneRoot {
  root: string | undefined;
  base: string | undefined;
  paths: string[];
}

/**
 * Locates paths that must be asked in one request (`readImages`: one question about all the
 * pictures): they must lie in one workspace folder, else a `-32602` ReaderdError says so.
 */
export function locateInOneRoot(paths: string[], roots: WorkspaceRoots): OneRoot {
  const located = paths.map((p) => roots.locate(p));
  const first = located[0];
  const folders = new Set(located.map((l) => `${l.root ?? ''}\0${l.base ?? ''}`));
  if (!first || folders.size > 1) {
    throw new ReaderdError('rpc', `readerd: the files lie in ${folders.size} workspace folders; ask about the files of one folder at a time`, ErrorCode.InvalidParams);
  }
  return { root: first.root, base: first.base, paths: located.map((l) => l.sent) };
}
