// Lets the conformance framework load on node 20: it imports fs.globSync (node 22) at the top
// of its bundle but calls it only in its tier-check command, which tests never run. Registered
// with `node --import ./node20-fs.mjs`; does nothing on a node that has fs.globSync.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') {
  register('data:text/javascript,' + encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/'))
        return { url: 'readerd-fs:shim', shortCircuit: true };
      return next(specifier, context);
    }
    export async function load(url, context, next) {
      if (url !== 'readerd-fs:shim') return next(url, context);
      const names = Object.keys(await import('node:fs')).filter((n) => n !== 'default' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(n));
      return {
        format: 'module',
        shortCircuit: true,
        source: 'import fs from "node:fs";' +
          'export const { ' + names.join(', ') + ' } = fs;' +
          'export function globSync() { throw new Error("fs.globSync needs node 22"); }' +
          'export default fs;',
      };
    }
  `));
}
