// @-mentions in the workspace: the expansion that the chat participant, the expand commands and
// the API use (a mention located among the workspace folders as a read is, a folder listed as VS
// Code lists it), and, where prompts are written, completion, highlights and hovers in the
// languages and files the settings give.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExpandMentionsOptions } from '../api';
import { Settings } from '../config';
import { Reads } from '../daemon/reads';
import { Exclusion } from '../exclusion';
import { XmlReadParams } from '../protocol';
import { WorkspaceRoots } from '../roots';
import { MentionCompletionProvider, mentionSelector } from './mentionCompletion';
import { MentionDecorations } from './mentionDecorations';
import { MentionIndex } from './mentionIndex';
import { expandMentions, ExpandedMessage, locatedFolders } from './mentions';

export interface WorkspaceMentionsDeps {
  roots(): WorkspaceRoots;
  settings(): Settings;
  reads: Pick<Reads, 'read'>;
  exclusion: Pick<Exclusion, 'leftOutBy'>;
}

/** What expand takes: the API's options, and those of the chat participant. */
export type ExpandOptions = ExpandMentionsOptions & { extraPaths?: string[]; render?: boolean };

/** Files directly in a folder, as VS Code lists them (files.exclude applies), sorted. */
async function filesInFolder(folder: vscode.Uri): Promise<vscode.Uri[]> {
  const found = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '*'));
  return found.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}

async function stat(abs: string): Promise<vscode.FileStat | undefined> {
  try {
    return await vscode.workspace.fs.stat(vscode.Uri.file(abs));
  } catch {
    return undefined;
  }
}

export class WorkspaceMentions implements vscode.Disposable {
  private readonly index: MentionIndex;
  private readonly completion: MentionCompletionProvider;
  private readonly decorations: MentionDecorations;
  private providers: vscode.Disposable | undefined;

  constructor(private readonly deps: WorkspaceMentionsDeps) {
    const { roots } = deps;
    this.index = new MentionIndex(roots, deps.exclusion);
    this.completion = new MentionCompletionProvider(this.index, () => (roots().isMultiRoot ? roots().folders.map((f) => f.name) : []));
    this.decorations = new MentionDecorations({
      selector: () => this.selector(),
      roots,
      read: (params, token) => deps.reads.read<XmlReadParams>(params, { token }),
      folderFiles: (rel) => this.folderFiles(rel),
    });
    this.registerProviders();
  }

  private selector(): vscode.DocumentFilter[] {
    const settings = this.deps.settings();
    return mentionSelector(settings.mentionLanguages, settings.mentionFiles);
  }

  private async folderFiles(rel: string): Promise<string[]> {
    const roots = this.deps.roots();
    return (await filesInFolder(vscode.Uri.file(roots.locate(rel).absolute))).map((u) => roots.display(u.fsPath));
  }

  private registerProviders(): void {
    this.providers?.dispose();
    this.providers = vscode.Disposable.from(
      vscode.languages.registerCompletionItemProvider(this.selector(), this.completion, '@', '/', '"'),
      vscode.languages.registerHoverProvider(this.selector(), this.decorations),
    );
    // The editor's context menu offers the expand commands in these languages.
    const languages = ['markdown', 'plaintext', 'prompt', 'instructions', 'chatmode', ...this.deps.settings().mentionLanguages];
    void vscode.commands.executeCommand('setContext', 'readerd.mentionLanguageIds', languages);
  }

  /** Expands the mentions of `text` into one read; without options.root, among the workspace folders. */
  async expand(text: string, options: ExpandOptions = {}): Promise<ExpandedMessage> {
    const roots = this.deps.roots();
    if (!options.root && roots.folders.length === 0) {
      throw new Error('readerd: @-mentions need a workspace folder (or options.root)');
    }
    // Without options.root, a mention is located among the workspace folders as readFiles does.
    const absolute = (rel: string): string => (options.root ? path.resolve(options.root, rel) : roots.locate(rel).absolute);
    return expandMentions(text, {
      root: options.root,
      read: (params) => this.deps.reads.read(params, { token: options.token }),
      extraPaths: options.extraPaths,
      render: options.render,
      images: { maxDimension: this.deps.settings().maxImageDimension },
      ...locatedFolders(
        absolute,
        async (dir) => (await filesInFolder(vscode.Uri.file(dir))).map((u) => u.fsPath),
        async (abs) => (((await stat(abs))?.type ?? 0) & vscode.FileType.Directory) !== 0,
        async (abs) => (await stat(abs)) !== undefined,
      ),
    });
  }

  /** Follows the settings: new languages or files are registered again and highlighted. */
  settingsChanged(changed: Array<keyof Settings>): void {
    if (changed.includes('mentionLanguages') || changed.includes('mentionFiles')) {
      this.registerProviders();
      this.decorations.schedule();
    }
  }

  /** Follows the workspace folders: the highlights are made again. */
  foldersChanged(): void {
    this.decorations.schedule();
  }

  dispose(): void {
    this.index.dispose();
    this.decorations.dispose();
    this.providers?.dispose();
  }
}
