// `@` completion wherever a prompt is written: Markdown, plain text and prompt files, and the
// languages and files the user adds (`readerd.mentionLanguages`, `readerd.mentionFiles`). Typing
// `@` offers the workspace's files and folders (VS Code's suggest widget matches fuzzily), the
// recently opened first; accepting one inserts `@/path` (`@"/path with spaces"`), and a folder
// `@/folder/`, then offers what is in it.

import * as vscode from 'vscode';
import { IndexedEntry, MentionIndex } from './mentionIndex';
import { typingMention } from './mentions';

/** Where mentions are completed, highlighted and hovered without any setting. */
export const PROMPT_DOCUMENTS: vscode.DocumentFilter[] = [
  { language: 'markdown' },
  { language: 'plaintext' },
  { language: 'prompt' },
  { language: 'instructions' },
  { language: 'chatmode' },
  { pattern: '**/*.prompt.md' },
  { pattern: '**/.github/prompts/**' },
  { pattern: '**/AGENTS.md' },
  { pattern: '**/CLAUDE.md' },
];

/** The documents for mentions: the prompt documents plus the settings' languages and file patterns. */
export function mentionSelector(languages: readonly string[], files: readonly string[]): vscode.DocumentFilter[] {
  return [
    ...PROMPT_DOCUMENTS,
    ...languages.filter((l) => l.trim() !== '').map((language) => (language === '*' ? { pattern: '**' } : { language })),
    ...files.filter((f) => f.trim() !== '').map((pattern) => ({ pattern })),
  ];
}

/** How a path is written in a mention: `@/a.c`, `@"/my file.md"`. */
export function mentionText(rel: string, folder: boolean): string {
  const p = `/${rel}${folder ? '/' : ''}`;
  return /[\s"'`<>\\]/.test(p) ? `@"${p}"` : `@${p}`;
}

export class MentionCompletionProvider implements vscode.CompletionItemProvider {
  constructor(
    private readonly index: MentionIndex,
    private readonly folderNames: () => string[],
  ) {}

  async provideCompletionItems(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.CompletionList | undefined> {
    const line = document.lineAt(position.line).text.slice(0, position.character);
    const typing = typingMention(line);
    if (!typing) {
      return undefined;
    }
    // Fenced code blocks span lines: look at the text above too.
    const above = document.getText(new vscode.Range(new vscode.Position(Math.max(0, position.line - 2000), 0), position));
    if (!typingMention(above)) {
      return undefined;
    }
    const entries = await this.index.list();
    if (token.isCancellationRequested) {
      return undefined;
    }
    const range = new vscode.Range(position.line, typing.start, position.line, position.character);
    // After `@/` or `@"`, the widget matches what follows against the same prefix.
    const typedPrefix = line.slice(typing.start, position.character).replace(/^(@"?\/?).*$/s, '$1');
    // The document being written is no mention of its own.
    const items = entries
      .filter((entry) => entry.uri.toString() !== document.uri.toString())
      .map((entry) => this.item(entry, range, typedPrefix, undefined, document.uri));
    for (const name of this.folderNames()) {
      items.push(this.item({ rel: name, uri: vscode.Uri.file(name), folder: true }, range, typedPrefix, 'workspace folder'));
    }
    return new vscode.CompletionList(items, false);
  }

  private item(entry: IndexedEntry, range: vscode.Range, typedPrefix: string, detail?: string, writing?: vscode.Uri): vscode.CompletionItem {
    const label = entry.folder ? `${entry.rel}/` : entry.rel;
    const item = new vscode.CompletionItem(
      { label, description: detail ?? (entry.folder ? 'folder' : undefined) },
      entry.folder ? vscode.CompletionItemKind.Folder : vscode.CompletionItemKind.File,
    );
    const text = mentionText(entry.rel, entry.folder);
    item.range = range;
    item.filterText = `${typedPrefix}${label}`;
    const rank = entry.folder ? undefined : this.index.recentRank(entry.uri, writing);
    item.sortText = rank !== undefined ? `0${String(rank).padStart(3, '0')}` : `${entry.folder ? '2' : '1'}${label}`;
    if (entry.folder && text.endsWith('/')) {
      // Completes into the folder: insert `@/docs/`, then offer what is in it.
      item.insertText = text;
      item.command = { command: 'editor.action.triggerSuggest', title: 'Complete in the folder' };
    } else {
      item.insertText = `${text} `;
    }
    return item;
  }
}
