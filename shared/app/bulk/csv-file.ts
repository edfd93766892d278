import { Readable } from 'node:stream';
import type * as CsvParse from 'csv-parse';
import { fileProblemOf, fileRefused } from '../../kernel/errors';
import { requireLazily } from '../../kernel/lazy';

/**
 * Reads an uploaded CSV file as a stream of rows, so memory does not grow with the file. Columns are
 * found by header name (any order, any case, surrounding spaces ignored); UTF-8 with or without BOM;
 * LF or CRLF; quoted fields may hold commas, quotes and newlines. Values are text and nothing more:
 * nothing from the file is ever evaluated.
 */

export interface CsvRow<C extends string> {
  /** The line of the file the row starts on (the header is line 1). */
  line: number;
  values: Record<C, string>;
  /** The row's original cells, in the file's column order (for the failed-rows file). */
  cells: string[];
}

export interface CsvLayout<C extends string> {
  /** Every column the operation reads, by its canonical name. */
  columns: readonly C[];
  /** The columns that must be present in the header. */
  required: readonly C[];
}

export interface CsvLimits {
  maxRows: number;
  maxBytes: number;
}

/** A file part of a multipart body: cut at the route's limit, and then `truncated`. */
export interface UploadedFile {
  content: Buffer;
  truncated: boolean;
}

const largerThan = (maxBytes: number) => `The file is larger than ${maxBytes} bytes`;

/** Refuses (413) a file the request could not carry whole or that is over `maxBytes`. */
export function requireWithin(file: UploadedFile, maxBytes: number, message = largerThan(maxBytes)): void {
  if (file.truncated || file.content.length > maxBytes) throw fileRefused('FILE_TOO_LARGE', message);
}

/**
 * csv-parse, loaded by the first file read: of the bulk function's routes, only the uploads read one.
 * A package left out of the functions' bundles (its own file in the functions that load it:
 * docs/decisions/lighter-functions.md).
 */
const csvParse = /* @__PURE__ */ requireLazily<typeof CsvParse>('csv-parse', () => require('csv-parse')); // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose

const canonical = (name: string) => name.trim().toLowerCase();

/**
 * The rows of a CSV file. Throws `fileRefused` errors for a file that cannot be processed at all: no header,
 * a missing column, not text, not CSV, or over the limits.
 */
export async function* readCsv<C extends string>(
  source: Readable | Buffer | string,
  layout: CsvLayout<C>,
  limits: CsvLimits,
  onHeader?: (header: string[]) => void,
): AsyncGenerator<CsvRow<C>> {
  const stream = typeof source === 'string' || Buffer.isBuffer(source) ? Readable.from([Buffer.from(source)]) : source;
  let bytes = 0;
  const counted = stream.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limits.maxBytes) {
      stream.destroy(fileRefused('FILE_TOO_LARGE', largerThan(limits.maxBytes)));
    }
  });
  const parser = counted.pipe(
    csvParse().parse({ bom: true, record_delimiter: ['\r\n', '\n', '\r'], skip_empty_lines: true, relax_column_count: true, info: true, max_record_size: 64 * 1024 }),
  );
  counted.on('error', (error) => parser.destroy(error));

  let positions: Map<C, number> | undefined;
  // Lines are counted here: csv-parse's own count takes a CRLF inside a quoted field for two lines.
  let nextLine = 1;
  let emptyLinesBefore = 0;
  let rows = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { empty_lines: number } }>) {
      const line = nextLine + (info.empty_lines - emptyLinesBefore);
      nextLine = line + 1 + record.reduce((breaks, cell) => breaks + (cell.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
      emptyLinesBefore = info.empty_lines;
      if (record.some((cell) => cell.includes('\u0000') || cell.includes('\ufffd'))) {
        throw fileRefused('NOT_CSV', 'The file is not UTF-8 text');
      }
      if (!positions) {
        positions = headerPositions(record, layout);
        onHeader?.(record);
        continue;
      }
      if (record.every((cell) => cell.trim() === '')) continue;
      if (++rows > limits.maxRows) throw fileRefused('TOO_MANY_ROWS', `The file has more than ${limits.maxRows} rows`);
      const values = {} as Record<C, string>;
      for (const column of layout.columns) {
        const at = positions.get(column);
        values[column] = at === undefined ? '' : (record[at] ?? '').trim();
      }
      yield { line, values, cells: record };
    }
  } catch (error) {
    if (fileProblemOf(error)) throw error;
    const code = (error as { code?: string }).code ?? '';
    const message = code.startsWith('CSV_') ? `The file is not valid CSV (${code})` : 'The file could not be read as CSV';
    throw fileRefused('NOT_CSV', { message, cause: error });
  }
  if (!positions) throw fileRefused('EMPTY_FILE', 'The file is empty: it needs a header row and at least one row');
  if (rows === 0) throw fileRefused('EMPTY_FILE', 'The file has a header but no rows');
}

function headerPositions<C extends string>(header: string[], layout: CsvLayout<C>): Map<C, number> {
  const byName = new Map<string, number>();
  header.forEach((name, i) => {
    if (!byName.has(canonical(name))) byName.set(canonical(name), i);
  });
  const positions = new Map<C, number>();
  for (const column of layout.columns) {
    const at = byName.get(canonical(column));
    if (at !== undefined) positions.set(column, at);
  }
  const missing = layout.required.filter((column) => !positions.has(column));
  if (missing.length > 0) {
    const separator = otherSeparatorOf(header, layout);
    if (separator) {
      throw fileRefused(
        'MISSING_COLUMNS',
        `The header row is separated by ${separator}, not commas: save the file as comma-separated CSV (in Excel, "CSV UTF-8 (Comma delimited)") and upload it again`,
      );
    }
    const columns = `column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
    throw fileRefused('MISSING_COLUMNS', `The file lacks the ${columns}: add ${missing.length > 1 ? 'them' : 'it'} to the header row (the first line), spelled as documented`);
  }
  return positions;
}

/**
 * The separator a header row uses instead of commas (Excel's exports in many locales use semicolons,
 * "Unicode text" tabs), when splitting on it would have found the required columns.
 */
function otherSeparatorOf<C extends string>(header: string[], layout: CsvLayout<C>): string | undefined {
  const separators = [
    [';', 'semicolons (;)'],
    ['\t', 'tabs'],
  ] as const;
  for (const [character, name] of separators) {
    const names = new Set(header.flatMap((cell) => cell.split(character)).map(canonical));
    if (layout.required.every((column) => names.has(canonical(column)))) return name;
  }
  return undefined;
}

/**
 * A cell as it may be written into a CSV that a spreadsheet will open: values starting with `=`, `+`,
 * `-`, `@`, tab or carriage return get a leading apostrophe so they are never taken for formulas
 * (OWASP "CSV injection"), and the cell is quoted when it needs to be.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
