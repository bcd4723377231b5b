// Types of readerd's wire protocol (docs/protocol.md in the repository). Nothing here imports
// vscode, so the client and the mention parser can be used and tested in plain Node.

/** One item of `read`'s `paths`: a path, or a path with its own window / PDF options. */
export type PathSpec =
  | string
  | {
      path: string;
      offset?: number;
      limit?: number;
      pages?: string;
      render?: boolean;
      password?: string;
    };

/** Parameters of the `read` method. */
export interface ReadParams {
  paths: PathSpec[];
  cwd?: string;
  offset?: number;
  limit?: number;
  lineNumbers?: boolean;
  images?: { maxDimension?: number };
}

/** `files[i]` of a read result: answers `paths[i]`. */
export interface FileInfo {
  path: string;
  type?: 'text' | 'image' | 'pdf' | string;
  bytes?: number;
  modified?: number;
  lines?: number;
  encoding?: string;
  eol?: 'lf' | 'crlf' | 'mixed';
  bom?: boolean;
  truncated?: boolean;
  shown?: [number, number];
  mediaType?: string;
  image?: number;
  width?: number;
  height?: number;
  pages?: number;
  /** Set when this file could not be read (FILE_NOT_FOUND, IS_DIRECTORY, ...). */
  code?: string;
  error?: string;
}

/** `images[k]` of a read result. `width`/`height` describe `data`. */
export interface ImageInfo {
  path: string;
  mediaType: string;
  /** base64 */
  data: string;
  width: number;
  height: number;
  originalWidth?: number;
  originalHeight?: number;
  page?: number;
}

/** The result of `read`. */
export interface ReadResult {
  xml: string;
  images: ImageInfo[];
  files: FileInfo[];
  bytes: number;
  lines: number;
}

/** Parameters of `initialize`. */
export interface InitializeParams {
  rootPath?: string;
  /** Refuse files outside rootPath once symlinks are resolved (needs rootPath). */
  confineToRoot?: boolean;
  /** Glob patterns of files never to read: a name (`.env`, `*.pem`) or a path under the root. */
  exclude?: string[];
  clientInfo?: { name: string; version?: string };
}

/** The result of `initialize`. */
export interface InitializeResult {
  serverInfo: { name: string; version: string };
  capabilities: {
    read?: { types?: string[]; maxPaths?: number; defaultLimit?: number };
    cancelRequest?: boolean;
    [key: string]: unknown;
  };
}

/** JSON-RPC error codes readerd answers with. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  RequestCancelled: -32800,
} as const;
