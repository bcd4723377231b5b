// readerd as VS Code's own MCP server: `readerd mcp` registered through the MCP server definition
// provider API, so agent mode and any MCP-aware extension get `read_files` without configuration.
// Registered only where VS Code has that API.

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

export class ReaderdMcpProvider implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;

  constructor(private readonly deps: McpDeps) {}

  /** The workspace folders, the settings or the binary changed. */
  refresh(): void {
    this.changed.fire();
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
