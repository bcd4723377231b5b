// Paths in result documents (`readerd:` scheme: read results and expanded prompts) as links that
// open the file at the first line shown.

import * as vscode from 'vscode';
import { RESULT_SCHEME } from './results';
import { WorkspaceRoots } from '../roots';

const CONTENT = /<Content path='([^']*)'([^>]*)>/g;

function unescapeXml(s: string): string {
  return s.replace(/&(apos|quot|lt|gt|amp|#(\d+)|#x([0-9a-fA-F]+));/g, (_m, name: string, dec?: string, hex?: string) => {
    if (dec) {
      return String.fromCodePoint(Number(dec));
    }
    if (hex) {
      return String.fromCodePoint(parseInt(hex, 16));
    }
    return ({ apos: "'", quot: '"', lt: '<', gt: '>', amp: '&' } as Record<string, string>)[name]!;
  });
}

export class ResultLinks implements vscode.DocumentLinkProvider {
  static readonly selector: vscode.DocumentSelector = { scheme: RESULT_SCHEME };

  constructor(private readonly roots: () => WorkspaceRoots) {}

  provideDocumentLinks(doc: vscode.TextDocument): vscode.DocumentLink[] {
    const roots = this.roots();
    if (roots.folders.length === 0) {
      return [];
    }
    const text = doc.getText();
    const links: vscode.DocumentLink[] = [];
    for (const m of text.matchAll(CONTENT)) {
      const written = unescapeXml(m[1]!);
      const start = (m.index ?? 0) + "<Content path='".length;
      const range = new vscode.Range(doc.positionAt(start), doc.positionAt(start + m[1]!.length));
      const shown = /\sshown='(\d+)-\d+'/.exec(m[2]!);
      const line = shown ? Number(shown[1]) : 1;
      const target = vscode.Uri.file(roots.locate(written).absolute).with({ fragment: `L${line}` });
      const link = new vscode.DocumentLink(range, target);
      link.tooltip = `Open ${written}${shown ? ` at line ${line}` : ''}`;
      links.push(link);
    }
    return links;
  }
}
