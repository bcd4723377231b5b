// Reads for the whole extension (the commands, @-mentions, the chat participant, the tools and the
// API): each path sent fenced to the workspace folder it belongs to, the daemon started on first
// use; and readImages, the vision model's question about pictures.

import * as vscode from 'vscode';
import { DaemonLifecycle } from './lifecycle';
import { locateInOneRoot, readInRoots } from './rootedRead';
import { ReadAnswer, ReadImagesParams, ReadImagesResult, ReadParams } from '../protocol';
import { WorkspaceRoots } from '../roots';

/** Least wait for readImages: the daemon waits up to 120 s for the endpoint, and retries a 429 once. */
const VISION_TIMEOUT_MS = 180_000;

export class Reads {
  constructor(
    private readonly daemon: DaemonLifecycle,
    private readonly roots: () => WorkspaceRoots,
  ) {}

  /**
   * Reads, starting the daemon on first use. Each path is fenced to the workspace folder it
   * belongs to (see WorkspaceRoots.locate).
   */
  async read<P extends ReadParams>(params: P, options: { token?: vscode.CancellationToken; timeoutMs?: number } = {}): Promise<ReadAnswer<P>> {
    const manager = await this.daemon.running();
    const result = await readInRoots(params, this.roots(), (sub, root) => manager.read(sub, { ...options, root: root ?? null }));
    return result as ReadAnswer<P>;
  }

  /** The `read` params the settings give the read command and the tool. */
  defaults(): Pick<ReadParams, 'lineNumbers' | 'images'> {
    const settings = this.daemon.settings;
    return {
      lineNumbers: settings.lineNumbers,
      images: { maxDimension: settings.maxImageDimension },
    };
  }

  /** Asks the vision model about pictures (`readImages`), in the one workspace folder the paths lie in. */
  async readImages(params: Omit<ReadImagesParams, 'cwd'>, options: { token?: vscode.CancellationToken } = {}): Promise<ReadImagesResult> {
    const manager = await this.daemon.running();
    const where = locateInOneRoot(params.paths, this.roots());
    const vision = this.daemon.vision();
    const timeout = this.daemon.settings.requestTimeout;
    // The endpoint also goes per call, as readImages takes it; the key only through initialize.
    const call: ReadImagesParams = { ...params, paths: where.paths, cwd: where.base, baseUrl: vision?.baseUrl, model: vision?.model, provider: vision?.provider };
    return manager.readImages(call, { token: options.token, root: where.root ?? null, timeoutMs: timeout === 0 ? 0 : Math.max(timeout, VISION_TIMEOUT_MS) });
  }
}
