// Types of readerd's wire protocol (docs/protocol.md in the repository). Nothing here imports
// vscode, so the client and the mention parser can be used and tested in plain Node.

/** One item of `read`'s `paths`, with its own window and PDF / SVG options. */
export interface PathItem {
  path: string;
  /** First line shown of this text file (>= 1); overrides the request's. */
  offset?: number;
  /** Lines shown at most of this text file (>= 1); overrides the request's. */
  limit?: number;
  /** The last lines of this text file (>= 1) instead of offset and limit, with their true line
   * numbers; sets the request's `offset` aside. Not with `offset` or `column`. */
  tail?: number;
  /** Line `offset` shown from this character on (>= 1; characters, not bytes): the column a cut
   * marker names (`… [N more characters cut; continue with offset=L, column=C]`). */
  column?: number;
  /** PDF pages: `"3"`, `"2-5"`, `"1,28-"`. */
  pages?: string;
  /** Render PDF pages as pictures; send an SVG file as a picture. */
  render?: boolean;
  /** Password of an encrypted PDF (the user or the owner password). */
  password?: string;
  /** Character set of this text file (an iconv name), decoded without detection; overrides
   * the request's. */
  encoding?: string;
}

/** One item of `read`'s `paths`: a path, or a path with its own options. */
export type PathSpec = string | PathItem;

/** The `format` param of `read`: the shape of the result (docs/formats.md). */
export type ReadFormat = 'xml' | 'anthropic' | 'openai' | 'toolresult' | 'text';

/** The `images` param of `read`. */
export interface ImageParams {
  /** Long edge in pixels of the images sent, 16 to 8000; default 1568. */
  maxDimension?: number;
  /** Base64 bytes of all the request's images, 0 to 1073741824; default 20 MiB. */
  maxTotalBytes?: number;
  /** `detail` of the `openai` format's image parts; default `auto`. */
  detail?: 'auto' | 'low' | 'high';
  /**
   * Tall or wide pictures as overlapping tiles, each labelled with its box; default `auto` (when
   * fitting would shrink a picture beyond 2.5:1 below half), `always` (whenever a picture is
   * larger than maxDimension or than the provider takes unscaled; one that fits is one tile),
   * `never`.
   */
  tile?: 'auto' | 'never' | 'always';
}

/** Where a tile lies in the whole (upright) picture, in its pixels. */
export interface TileBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Parameters of the `read` method. */
export interface ReadParams {
  /** 1 to 10,000 items. */
  paths: PathSpec[];
  /** Base of relative paths; default: the connection's `rootPath`. */
  cwd?: string;
  /** First line shown of text files (>= 1); default 1. */
  offset?: number;
  /** Lines shown at most of text files (>= 1); default 2000. */
  limit?: number;
  /** The last lines of each text file (>= 1) instead of offset and limit; not with `offset`.
   * A path's own `offset` sets it aside. Pictures and PDFs ignore it. */
  tail?: number;
  /** Character set of every text file (an iconv name such as `iso-8859-2`), decoded without
   * detection; a path's own `encoding` wins. */
  encoding?: string;
  /** `cat -n` numbering; default true. */
  lineNumbers?: boolean;
  images?: ImageParams;
  /** The shape of the result; default `xml` (a ReadResult), else a FormattedReadResult. */
  format?: ReadFormat;
  /**
   * Files the client already has: path (exactly as given in `paths`) to the `etag` an earlier
   * read answered. A file that still has it comes back `unchanged: true`, without content.
   */
  ifNoneMatch?: Record<string, string>;
  /** Folders and globs read as the files under them; default false (IS_DIRECTORY). */
  expand?: boolean | ExpandParams;
  /**
   * Estimated tokens the whole answer may take, content and XML markup: files in request order,
   * each within a fair share; files left out come back with `omitted: 'budget'`, listed in the
   * XML while they take at most a tenth of the budget, the rest in one `<Omitted>` summary
   * (`omitted` in the result). `tokens` >= 1.
   */
  budget?: { tokens: number };
  /**
   * Answer the entries (after expansion) from this index on: the `skip` of a budget's summary,
   * with the same other params. 0 to 10,000; default 0.
   */
  skip?: number;
  /** Answer what a read would show, per file and in total, without any content. */
  plan?: boolean;
}

/** `expand` as an object (which turns expansion on). */
export interface ExpandParams {
  /** Files per folder or glob at most (1 to 10,000); default 500. */
  maxFiles?: number;
  /** Also the files ignore rules leave out; default false. */
  ignored?: boolean;
  /** Read binary files instead of listing them; default false. */
  binary?: boolean;
}

/** A word about an expansion: the files past maxFiles, what ignore rules left out. */
export interface ReadNotice {
  /** The folder or glob as given in `paths`. */
  path: string;
  /** Its index in `paths`. */
  from: number;
  message: string;
}

/** `files[i]` of a read result: answers `paths[i]`. */
export interface FileInfo {
  /** Always valid UTF-8; a byte of the name that is not shows as U+FFFD. */
  path: string;
  /** The name's exact bytes when `path` cannot say them: UTF-8, `\\` for a backslash, `\xHH`
   * for any other byte. Send it back as `{pathBytes}` in `paths` to read the same file. */
  pathBytes?: string;
  type?: 'text' | 'image' | 'pdf' | 'notebook' | 'document' | string;
  bytes?: number;
  modified?: number;
  lines?: number;
  /**
   * What the file was, lowercase IANA style: `utf-8`, `utf-16le`, `iso-8859-1`, `windows-1252`,
   * `shift_jis`, `euc-jp`, `iso-2022-jp`, `gb18030`, `big5`, `euc-kr`, `koi8-r`, `windows-1251`, ...
   */
  encoding?: string;
  /** How `encoding` was chosen; absent when the file is UTF-8 by its bytes. */
  encodingSource?: 'bom' | 'detected' | 'fallback' | 'client';
  eol?: 'lf' | 'crlf' | 'mixed';
  bom?: boolean;
  truncated?: boolean;
  shown?: [number, number];
  mediaType?: string;
  image?: number;
  width?: number;
  height?: number;
  pages?: number;
  /** Pictures: the size of the upright source when it was resized. */
  originalWidth?: number;
  originalHeight?: number;
  /** An animation, of which the first frame is sent. */
  animated?: boolean;
  /**
   * A picture sent as tiles: how many it was cut into (`image`, `width`, `height` are then the
   * first tile's; originalWidth/originalHeight the whole picture's). `truncated` when the image
   * budget left some out.
   */
  tiles?: number;
  /** PDFs: from the document information. */
  title?: string;
  author?: string;
  /**
   * The opened file's version (device, inode, size, mtime in ns): pass it back in
   * `ifNoneMatch` to skip the file while it has not changed.
   */
  etag?: string;
  /** The etag matched `ifNoneMatch`: no `type`, no content; `bytes`, `modified`, `etag` kept. */
  unchanged?: boolean;
  /** Office documents (`type: 'document'`): which kind. */
  format?: 'docx' | 'xlsx' | 'pptx';
  /** Notebooks: cells in the whole notebook (`shown` counts cells); its kernel's language. */
  cells?: number;
  language?: string;
  /** XLSX: sheets in the workbook. PPTX: slides in the presentation (`shown` counts slides). */
  sheets?: number;
  slides?: number;
  /** Set when this file could not be read (FILE_NOT_FOUND, IS_DIRECTORY, ...). */
  code?: string;
  error?: string;
  /** The index in `paths` of the folder or glob this file was expanded from. */
  from?: number;
  /** Estimated tokens of what is shown of this file (0 for a failure or an omission). */
  tokens?: number;
  /** Plan entries and omitted files: estimated tokens of the whole file as a read shows it. */
  tokensTotal?: number;
  /**
   * Why the content is absent though this is not an error: `binary` (listed by an expansion),
   * `budget` (the request's budget left it out).
   */
  omitted?: 'binary' | 'budget' | string;
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
  /** A tile of a tall or wide picture: its box in the whole picture. */
  tile?: TileBox;
  /** 1-based, with `tile`. */
  tileIndex?: number;
  /** The tiles the picture was cut into, with `tile`. */
  tiles?: number;
  /** A notebook's picture output: the 1-based index of its cell. */
  cell?: number;
}

/**
 * A budget's summary of the entries it left out past those its XML lists one by one: every
 * entry from `first` to the last (files[] still has them all).
 */
export interface BudgetSummary {
  /** Entries summarized. */
  files: number;
  bytes: number;
  /** Estimated tokens of the whole files. */
  tokensTotal: number;
  /** The path of the first. */
  first: string;
  /** The `skip` that reads them next, with the same other params. */
  skip: number;
}

/** The result of `read`. */
export interface ReadResult {
  xml: string;
  images: ImageInfo[];
  files: FileInfo[];
  /** Present when an expansion left files out. */
  notices?: ReadNotice[];
  bytes: number;
  lines: number;
  /** Estimated tokens of what the answer shows: the sum of files[].tokens. */
  tokens?: number;
  /**
   * With a budget: estimated tokens of the whole answer the model reads (content and XML
   * markup); never more than budget.
   */
  answerTokens?: number;
  /** With a budget: the entries summarized in the XML's `<Omitted>` element. */
  omitted?: BudgetSummary;
  /** The request's budget.tokens; tokens never exceeds it. */
  budget?: number;
  /** A plan: entries without content, and tokensTotal of the whole files. */
  plan?: boolean;
  tokensTotal?: number;
}

/** The `toolresult` format's shape. */
export interface ToolResultShape {
  success: boolean;
  /** The `<ReadResults>` XML. */
  content: string;
  error?: string;
  shortResult: string;
  /** `label` for a tile: "tile 2 of 7: x 0-1080, y 1519-3207 of 1080x10800". */
  images: Array<{ data: string; mediaType: string; label?: string }>;
}

/**
 * The result of `read` with a `format` other than `xml`: `{FORMAT: shape, files, bytes, lines}`.
 * The anthropic and openai shapes are those APIs' content blocks and parts (docs/formats.md).
 */
export interface FormattedReadResult {
  anthropic?: unknown[];
  openai?: unknown[];
  toolresult?: ToolResultShape;
  text?: string;
  files: FileInfo[];
  notices?: ReadNotice[];
  bytes: number;
  lines: number;
  tokens?: number;
  answerTokens?: number;
  omitted?: BudgetSummary;
  budget?: number;
  plan?: boolean;
  tokensTotal?: number;
}

/** `read` params that ask for the default `xml` format. */
export type XmlReadParams = ReadParams & { format?: 'xml' };

/**
 * What `read` answers for params of type P: a ReadResult for the `xml` format (the default), a
 * FormattedReadResult for another, either when P does not say which.
 */
export type ReadAnswer<P extends ReadParams> = P extends { format: Exclude<ReadFormat, 'xml'> }
  ? FormattedReadResult
  : P extends { paths: PathSpec[]; format?: 'xml' }
    ? ReadResult
    : ReadResult | FormattedReadResult;

/** Parameters of `initialize`. */
export interface InitializeParams {
  /** Base of relative paths for the connection. */
  rootPath?: string;
  /** Refuse files outside rootPath once symlinks are resolved (needs rootPath). */
  confineToRoot?: boolean;
  /** Glob patterns of files never to read: a name (`.env`, `*.pem`) or a path under the root. */
  exclude?: string[];
  /** Who is connecting; logged by the daemon. */
  clientInfo?: { name: string; version?: string };
  /**
   * The connection's vision endpoint for `readImages`, over the daemon's `READERD_VISION_*`
   * environment. The only way to give a key over the protocol (`readImages` refuses one).
   */
  vision?: VisionSettings;
}

/** A vision endpoint (docs/vision.md). Each string non-empty, at most 4096 bytes, no control characters. */
export interface VisionSettings {
  /** The API's base URL up to its version: `http://127.0.0.1:8000/v1`. */
  baseUrl?: string;
  model?: string;
  /** Sent only to `baseUrl` (or a URL below it): never to another base URL a call names. */
  apiKey?: string;
  provider?: 'openai' | 'anthropic';
}

/** Parameters of `readImages`. */
export interface ReadImagesParams {
  /** 1 to 100 image files and PDFs. */
  paths: string[];
  /** The question, 1 to 65,536 bytes. */
  query: string;
  cwd?: string;
  /** `low`: long edge <= 512 px; `high`: <= 2048 px, short side <= 768; `auto` (default) as high. */
  detail?: 'auto' | 'low' | 'high';
  /** Pages of every PDF; default the first 20. */
  pages?: string;
  /** Length of the answer at most, 1 to 131072 tokens; default 1024. */
  maxTokens?: number;
  /** This call's endpoint (never a key: the connection's key goes only to its own base URL). */
  model?: string;
  baseUrl?: string;
  provider?: 'openai' | 'anthropic';
}

/** A picture `readImages` sent. */
export interface SentImage {
  path: string;
  /** A PDF's page. */
  page?: number;
  mediaType: string;
  width: number;
  height: number;
  originalWidth?: number;
  originalHeight?: number;
  /** openai only. */
  detail?: 'low' | 'high';
  /** Bytes of base64. */
  bytes: number;
}

/** The result of `readImages`; also the `data` of its -32001 and -32002 errors (without the answer). */
export interface ReadImagesResult {
  answer: string;
  /** The model the endpoint says answered; null when it did not say. */
  model: string | null;
  provider: 'openai' | 'anthropic';
  usage: { inputTokens?: number; outputTokens?: number };
  images: SentImage[];
  /** `<ReadImagesResult provider model images>` with `<Answer>` and each file's `<Content>`. */
  xml: string;
  /** As `read` reports them (text files are UNSUPPORTED_FORMAT). */
  files: FileInfo[];
  bytes: number;
  lines: number;
}

/** The result of `initialize`. */
export interface InitializeResult {
  serverInfo: { name: string; version: string };
  capabilities: {
    read?: { types?: string[]; maxPaths?: number; defaultLimit?: number; maxAnswerBytes?: number; formats?: ReadFormat[] };
    cancelRequest?: boolean;
    /** Present when the daemon has `readImages`. */
    readImages?: { maxPaths?: number; providers?: Array<'openai' | 'anthropic'> };
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
  /** readImages: the vision endpoint failed. */
  EndpointFailed: -32001,
  /** readImages: no file gave a picture. */
  NoPictures: -32002,
} as const;
