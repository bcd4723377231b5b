// readerd as VS Code's own MCP server: `readerd mcp` registered through the MCP server definition
// provider API, so agent mode and any MCP-aware extension get `read_files` without configuration.
// Registered only where VS Code has that API. The definitions change when the binary does: when
// readerd.path changes, and when readerd appears (installed or built mid-session), which the
// provider notices by looking again every few seconds while it has none, and on every change of
// the daemon's state.

import * as vscode from 'vscode';
import { mcpServerArgs } from './mcpArgs';

export const MCP_PROVIDER_ID = 'readerd.mcp';

export interface McpDeps {
  /** The readerd binary, undefined when none is found. */
  binary(): string | undefined;
  folders(): string[];
  exclude(): string[];
  version(): string;
  log(line: string): void;
}

/** How often the binary is looked for while there is none, and once there is one. */
const LOOK_MISSING_MS = 2_000;
const LOOK_FOUND_MS = 20_000;

export class ReaderdMcpProvider implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  /** The binary of the definitions last given (undefined: none), and how often they changed. */
  private given: string | undefined;
  fired = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: McpDeps) {
    this.given = deps.binary();
    this.schedule();
  }

  /** The workspace folders or the settings changed: the definitions are asked for again. */
  refresh(): void {
    this.given = this.deps.binary();
    this.fire();
  }

  /** Looks for the binary again; tells VS Code when it appeared, changed or went. */
  check(): void {
    const now = this.deps.binary();
    if (now !== this.given) {
      this.deps.log(`readerd mcp: the binary is now ${now ?? 'missing'}`);
      this.given = now;
      this.fire();
    }
  }

  /** What the definitions would be now, for the tests. */
  state(): { binary: string | undefined; fired: number } {
    return { binary: this.given, fired: this.fired };
  }

  private fire(): void {
    this.fired++;
    this.changed.fire();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.check();
      this.schedule();
    }, this.given ? LOOK_FOUND_MS : LOOK_MISSING_MS);
    this.timer.unref?.();
  }

  provideMcpServerDefinitions(): vscode.McpStdioServerDefinition[] {
    const binary = this.deps.binary();
    const folders = this.deps.folders();
    if (!binary || folders.length === 0) {
      return [];
    }
    const args = mcpServerArgs(folders, this.deps.exclude());
    const def = new vscode.McpStdioServerDefinition('readerd', binary, args, {}, this.deps.version());
    def.cwd = vscode.Uri.file(folders[0]!);
    return [def];
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.changed.dispose();
  }
}

/** Registers the provider where the API exists; undefined elsewhere. */
export function registerMcpServer(deps: McpDeps): ReaderdMcpProvider | undefined {
  const lm = vscode.lm as { registerMcpServerDefinitionProvider?: typeof vscode.lm.registerMcpServerDefinitionProvider };
  if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || typeof vscode.McpStdioServerDefinition !== 'function') {
    deps.log('this VS Code has no MCP server definition API: readerd mcp is not registered');
    return undefined;
  }
  const provider = new ReaderdMcpProvider(deps);
  try {
    const registration = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider);
    const dispose = provider.dispose.bind(provider);
    provider.dispose = () => {
      registration.dispose();
      dispose();
    };
    return provider;
  } catch (error) {
    deps.log(`readerd mcp could not be registered: ${error instanceof Error ? error.message : String(error)}`);
    provider.dispose();
    return undefined;
  }
}
