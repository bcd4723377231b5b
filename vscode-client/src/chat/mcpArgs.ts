// The command line of `readerd mcp` as VS Code starts it for its MCP clients (agent mode, other
// extensions): fenced to the workspace folders with the extension's exclude patterns. Plain Node:
// no vscode import.

/** `readerd mcp` arguments: one `--root` per workspace folder, the `readerd.exclude` patterns instead of the defaults. */
export function mcpServerArgs(folders: readonly string[], exclude: readonly string[]): string[] {
  const args = ['mcp'];
  for (const folder of folders) {
    args.push('--root', folder);
  }
  args.push('--no-default-excludes');
  for (const pattern of exclude) {
    if (pattern.trim() !== '') {
      args.push('--exclude', pattern);
    }
  }
  return args;
}
