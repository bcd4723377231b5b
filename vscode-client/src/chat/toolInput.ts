// The input of the `readerd_read_files` tool: checked, and turned into `read`'s paths, each with
// its own offset, limit and pages. Plain Node: no vscode import.

import { PathItem, PathSpec } from '../protocol';

/** One item of the tool's `paths`: a path, or a path with its own window and pages. */
export type ToolPathItem = string | { path: string; offset?: number; limit?: number; pages?: string };

export interface ReadFilesToolInput {
  paths: ToolPathItem[];
  /** Defaults for every path that does not set its own. */
  offset?: number;
  limit?: number;
  pages?: string;
}

function checkWindow(where: string, value: { offset?: unknown; limit?: unknown; pages?: unknown }): void {
  for (const key of ['offset', 'limit'] as const) {
    const v = value[key];
    if (v !== undefined && (!Number.isInteger(v) || (v as number) < 1)) {
      throw new Error(`readerd_read_files: "${where}${key}" must be an integer >= 1`);
    }
  }
  if (value.pages !== undefined && (typeof value.pages !== 'string' || value.pages.trim() === '')) {
    throw new Error(`readerd_read_files: "${where}pages" must be a string such as "1-5"`);
  }
}

/** Checks the tool's input; throws a message the model can act on. */
export function checkInput(input: unknown): ReadFilesToolInput {
  const i = input as Partial<ReadFilesToolInput> | undefined;
  if (!i || !Array.isArray(i.paths) || i.paths.length === 0) {
    throw new Error('readerd_read_files: "paths" must be a non-empty array of paths, or of {path, offset, limit, pages}');
  }
  i.paths.forEach((item, k) => {
    if (typeof item === 'string') {
      if (item === '') {
        throw new Error(`readerd_read_files: "paths[${k}]" is empty`);
      }
      return;
    }
    if (!item || typeof item !== 'object' || typeof item.path !== 'string' || item.path === '') {
      throw new Error(`readerd_read_files: "paths[${k}]" must be a path string or {path, offset?, limit?, pages?}`);
    }
    checkWindow(`paths[${k}].`, item);
  });
  checkWindow('', i);
  return i as ReadFilesToolInput;
}

/**
 * The `paths` of the read: each item with its own offset, limit and pages; the input's `pages`
 * applies to the items that set none (its offset and limit go as the request's, which the daemon
 * applies to paths without their own).
 */
export function toolPaths(input: ReadFilesToolInput): PathSpec[] {
  return input.paths.map((item) => {
    const one = typeof item === 'string' ? { path: item } : item;
    const pages = one.pages ?? input.pages;
    const spec: PathItem = { path: one.path };
    if (one.offset !== undefined) {
      spec.offset = one.offset;
    }
    if (one.limit !== undefined) {
      spec.limit = one.limit;
    }
    if (pages !== undefined) {
      spec.pages = pages;
    }
    return Object.keys(spec).length === 1 ? spec.path : spec;
  });
}
