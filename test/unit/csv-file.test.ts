import { Readable } from 'node:stream';
import { csvCell, readCsv, type CsvLayout, type CsvLimits } from '../../shared/app/bulk/csv-file';
import { fileProblemOf, type FileProblem } from '../../shared/kernel/errors';

type Column = 'Email' | 'Name' | 'Role' | 'Company';
const layout: CsvLayout<Column> = { columns: ['Email', 'Name', 'Role', 'Company'], required: ['Email', 'Name', 'Role'] };
const roomy: CsvLimits = { maxRows: 100, maxBytes: 1_000_000 };

/** The rows of a file as line, values and cells. */
async function rowsOf(source: string | Buffer | Readable, limits: CsvLimits = roomy) {
  const rows = [];
  for await (const row of readCsv(source, layout, limits)) rows.push(row);
  return rows;
}

/** The problem a file is refused with (the test fails when it is read). */
async function problemOf(source: string | Buffer | Readable, limits: CsvLimits = roomy): Promise<{ problem: FileProblem; message: string }> {
  try {
    await rowsOf(source, limits);
  } catch (error) {
    const problem = fileProblemOf(error);
    if (problem) return { problem, message: (error as Error).message };
    throw error;
  }
  throw new Error('The file was read without a problem');
}

const linesOf = async (source: string | Buffer | Readable) => (await rowsOf(source)).map((row) => [row.line, row.values.Email]);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('the header', () => {
  test('columns are found by name in any order; values go to their column; absent optional columns are empty', async () => {
    const [row] = await rowsOf('Role,Name,Email\nVIEWER,Ann,ann@example.test\n');

    expect(row!.values).toEqual({ Email: 'ann@example.test', Name: 'Ann', Role: 'VIEWER', Company: '' });
    expect(row!.cells).toEqual(['VIEWER', 'Ann', 'ann@example.test']);
  });

  test('names match in any case and with surrounding spaces; unknown columns are ignored', async () => {
    const [row] = await rowsOf('  eMaIl ,Extra,\tNAME\t, role ,COMPANY\nann@example.test,x,Ann,EDITOR,Acme\n');

    expect(row!.values).toEqual({ Email: 'ann@example.test', Name: 'Ann', Role: 'EDITOR', Company: 'Acme' });
  });

  test('a UTF-8 BOM before the header is no part of the first column name', async () => {
    const [fromBuffer] = await rowsOf(Buffer.concat([BOM, Buffer.from('Email,Name,Role\nann@example.test,Ann,VIEWER\n')]));
    const [fromText] = await rowsOf('\ufeffEmail,Name,Role\nbob@example.test,Bob,VIEWER\n');

    expect(fromBuffer!.values.Email).toBe('ann@example.test');
    expect(fromText!.values.Email).toBe('bob@example.test');
  });

  test('a BOM split between two chunks of a stream is still recognised', async () => {
    const file = Buffer.concat([BOM, Buffer.from('Email,Name,Role\nann@example.test,Ann,VIEWER\n')]);

    const [row] = await rowsOf(Readable.from([file.subarray(0, 2), file.subarray(2)]));

    expect(row!.values.Email).toBe('ann@example.test');
  });

  test('a missing required column is MISSING_COLUMNS naming every missing one; an optional one may be missing', async () => {
    expect(await problemOf('Email,Name\na@example.test,A\n')).toEqual({ problem: 'MISSING_COLUMNS', message: expect.stringMatching(/\bRole\b/) });
    const both = await problemOf('Email,Company\na@example.test,Acme\n');
    expect(both.problem).toBe('MISSING_COLUMNS');
    expect(both.message).toMatch(/Name/);
    expect(both.message).toMatch(/Role/);
    expect(both.message).not.toMatch(/Email/);
    await expect(rowsOf('Email,Name,Role\na@example.test,A,ADMIN\n')).resolves.toHaveLength(1);
  });

  test('another separator than the comma is not taken for one (the header then lacks every column)', async () => {
    expect((await problemOf('Email;Name;Role\na@example.test;A;ADMIN\n')).problem).toBe('MISSING_COLUMNS');
  });
});

describe('line ends and line numbers', () => {
  test('LF, CRLF, CR and a mix of them end rows; values carry no line-end characters', async () => {
    const expected = [
      [2, 'a@example.test'],
      [3, 'b@example.test'],
    ];
    const body = (eol: string) => `Email,Name,Role${eol}a@example.test,A,VIEWER${eol}b@example.test,B,ADMIN${eol}`;

    expect(await linesOf(body('\n'))).toEqual(expected);
    expect(await linesOf(body('\r\n'))).toEqual(expected);
    expect(await linesOf(body('\r'))).toEqual(expected);
    const mixed = await rowsOf('Email,Name,Role\r\na@example.test,A,VIEWER\nb@example.test,B,ADMIN\rc@example.test,C,EDITOR');
    expect(mixed.map((row) => [row.line, row.values.Email, row.values.Role])).toEqual([
      [2, 'a@example.test', 'VIEWER'],
      [3, 'b@example.test', 'ADMIN'],
      [4, 'c@example.test', 'EDITOR'],
    ]);
  });

  test('a CRLF split between two chunks of a stream ends one row, not two', async () => {
    const rows = await rowsOf(Readable.from([Buffer.from('Email,Name,Role\r'), Buffer.from('\na@example.test,A,VIEWER\r\nb@example.test,B,ADMIN\r\n')]));

    expect(rows.map((row) => [row.line, row.values.Email])).toEqual([
      [2, 'a@example.test'],
      [3, 'b@example.test'],
    ]);
  });

  test('empty lines and rows of empty cells are skipped, and the rows after them keep their real line numbers', async () => {
    const lf = await linesOf('\nEmail,Name,Role\n\na@example.test,A,VIEWER\n\n\n,,\nb@example.test,B,ADMIN\n\n');
    const crlf = await linesOf('Email,Name,Role\r\n\r\na@example.test,A,VIEWER\r\n\r\nb@example.test,B,ADMIN\r\n');

    expect(lf).toEqual([
      [4, 'a@example.test'],
      [8, 'b@example.test'],
    ]);
    expect(crlf).toEqual([
      [3, 'a@example.test'],
      [5, 'b@example.test'],
    ]);
  });

  test('a row with a multi-line quoted field (LF inside) starts on its first line, and the next row on the line after its last', async () => {
    const rows = await rowsOf('Email,Name,Role,Company\na@example.test,"Ann\nSecond line\nThird",VIEWER,Acme\nb@example.test,B,ADMIN,\n');

    expect(rows.map((row) => [row.line, row.values.Email])).toEqual([
      [2, 'a@example.test'],
      [5, 'b@example.test'],
    ]);
    expect(rows[0]!.values.Name).toBe('Ann\nSecond line\nThird');
  });

  test('in a CRLF file, LF line breaks inside a quoted field (as spreadsheets write them) count one line each', async () => {
    expect(await linesOf('Email,Name,Role\r\na@example.test,"Ann\nSecond",VIEWER\r\nb@example.test,B,ADMIN\r\n')).toEqual([
      [2, 'a@example.test'],
      [4, 'b@example.test'],
    ]);
  });

  // csv-parse would count the CR and the LF of a CRLF inside a quoted field as two lines; the reader
  // counts line breaks itself, so a CRLF inside a field is one line, as in the file.
  test('in a CRLF file, a CRLF inside a quoted field counts one line, not two', async () => {
    expect(await linesOf('Email,Name,Role\r\na@example.test,"Ann\r\nSecond",VIEWER\r\nb@example.test,B,ADMIN\r\n')).toEqual([
      [2, 'a@example.test'],
      [4, 'b@example.test'],
    ]);
  });
});

describe('fields', () => {
  test('quoted fields keep commas, doubled quotes and line breaks; values are trimmed, cells kept as written', async () => {
    const [row] = await rowsOf('Email,Name,Role,Company\n a@example.test ,"Smith, ""Jo""",VIEWER,"Acme, Inc.\nBranch"\n');

    expect(row!.values).toEqual({ Email: 'a@example.test', Name: 'Smith, "Jo"', Role: 'VIEWER', Company: 'Acme, Inc.\nBranch' });
    expect(row!.cells).toEqual([' a@example.test ', 'Smith, "Jo"', 'VIEWER', 'Acme, Inc.\nBranch']);
  });

  test('values are text: formulas and numbers come back exactly as written', async () => {
    const [row] = await rowsOf('Email,Name,Role,Company\na@example.test,=1+2,VIEWER,"=HYPERLINK(""http://x"",""y"")"\n');

    expect(row!.values.Name).toBe('=1+2');
    expect(row!.values.Company).toBe('=HYPERLINK("http://x","y")');
  });

  test('a short row leaves the missing columns empty; extra cells are kept in cells only', async () => {
    const rows = await rowsOf('Email,Name,Role\na@example.test,A\nb@example.test,B,ADMIN,extra\n');

    expect(rows[0]!.values).toEqual({ Email: 'a@example.test', Name: 'A', Role: '', Company: '' });
    expect(rows[1]!.cells).toEqual(['b@example.test', 'B', 'ADMIN', 'extra']);
  });

  test('a multi-byte character split between two chunks of a stream is decoded whole', async () => {
    const file = Buffer.from('Email,Name,Role\na@example.test,José 名前,VIEWER\n');
    const at = file.indexOf(0xc3) + 1; // Inside the two bytes of "é".

    const [row] = await rowsOf(Readable.from([file.subarray(0, at), file.subarray(at)]));

    expect(row!.values.Name).toBe('José 名前');
  });
});

describe('files that are refused', () => {
  test('an empty file, one of empty lines only, and a header without rows are EMPTY_FILE', async () => {
    expect((await problemOf('')).problem).toBe('EMPTY_FILE');
    expect((await problemOf(Buffer.alloc(0))).problem).toBe('EMPTY_FILE');
    expect((await problemOf('\n\r\n\n')).problem).toBe('EMPTY_FILE');
    expect((await problemOf(BOM)).problem).toBe('EMPTY_FILE');
    expect((await problemOf('Email,Name,Role\n')).problem).toBe('EMPTY_FILE');
    expect((await problemOf('Email,Name,Role\r\n\r\n,,\r\n')).problem).toBe('EMPTY_FILE');
  });

  test('a file that is not UTF-8 text is NOT_CSV: binary, Latin-1, NUL characters', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);

    expect((await problemOf(png)).problem).toBe('NOT_CSV');
    expect((await problemOf(Buffer.from('Email,Name,Role\na@example.test,Jos\xe9,VIEWER\n', 'latin1'))).problem).toBe('NOT_CSV');
    expect((await problemOf('Email,Name,Role\na@example.test,A\u0000B,VIEWER\n')).problem).toBe('NOT_CSV');
  });

  test('malformed CSV is NOT_CSV: an unclosed quote, a quote inside an unquoted field, a record over 64 KiB', async () => {
    expect(await problemOf('Email,Name,Role\na@example.test,"Ann,VIEWER\n')).toEqual({ problem: 'NOT_CSV', message: expect.stringContaining('not valid CSV') });
    expect((await problemOf('Email,Name,Role\na@example.test,"Ann"x,VIEWER\n')).problem).toBe('NOT_CSV');
    expect((await problemOf(`Email,Name,Role\na@example.test,${'x'.repeat(70_000)},VIEWER\n`, { maxRows: 10, maxBytes: 1_000_000 })).problem).toBe('NOT_CSV');
  });

  test('at most maxRows rows: exactly the limit is read, one more is TOO_MANY_ROWS; empty lines do not count', async () => {
    const limits = { maxRows: 3, maxBytes: 1_000_000 };
    const file = (rows: number) => `Email,Name,Role\n${Array.from({ length: rows }, (_, i) => `u${i}@example.test,U,VIEWER\n\n`).join('')}`;

    await expect(rowsOf(file(3), limits)).resolves.toHaveLength(3);
    expect(await problemOf(file(4), limits)).toEqual({ problem: 'TOO_MANY_ROWS', message: expect.stringContaining('3') });
  });

  test('at most maxBytes bytes: exactly the limit is read, one byte more is FILE_TOO_LARGE, from a string or a stream', async () => {
    const file = 'Email,Name,Role\na@example.test,A,VIEWER\n';
    const size = Buffer.byteLength(file);

    await expect(rowsOf(file, { maxRows: 10, maxBytes: size })).resolves.toHaveLength(1);
    expect(await problemOf(file, { maxRows: 10, maxBytes: size - 1 })).toEqual({ problem: 'FILE_TOO_LARGE', message: expect.stringContaining(String(size - 1)) });
    const chunks = Array.from({ length: 20 }, (_, i) => Buffer.from(`u${i}@example.test,U,VIEWER\n`));
    const stream = Readable.from([Buffer.from('Email,Name,Role\n'), ...chunks]);
    expect((await problemOf(stream, { maxRows: 100, maxBytes: 200 })).problem).toBe('FILE_TOO_LARGE');
  });
});

describe('csvCell', () => {
  test.each([
    ['=1+2', "'=1+2"],
    ['+33 1 23', "'+33 1 23"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\tcmd', "'\tcmd"],
  ])('a value starting with a formula character (%j) gets a leading apostrophe', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  test('a value starting with CR is neutralised and quoted', () => {
    expect(csvCell('\r=cmd')).toBe(`"'\r=cmd"`);
  });

  test('a neutralised value that needs quoting is quoted around the apostrophe', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
  });

  test('values with commas, quotes or line breaks are quoted, quotes doubled; others are left as they are', () => {
    expect(csvCell('Acme, Inc.')).toBe('"Acme, Inc."');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('one\ntwo')).toBe('"one\ntwo"');
    expect(csvCell('one\r\ntwo')).toBe('"one\r\ntwo"');
    expect(csvCell('plain value')).toBe('plain value');
    expect(csvCell('a=b-c+d@e')).toBe('a=b-c+d@e');
    expect(csvCell('')).toBe('');
  });

  test('what csvCell writes reads back (apostrophe included) as one field each', async () => {
    const values = ['=1+2', 'Smith, "Jo"', 'two\nlines', '@x', 'plain'];
    const file = `Email,Name,Role,Company\n${values.map((value) => ['a@example.test', csvCell(value), 'VIEWER', 'x'].join(',')).join('\n')}\n`;

    const rows = await rowsOf(file);

    expect(rows.map((row) => row.cells[1])).toEqual(["'=1+2", 'Smith, "Jo"', 'two\nlines', "'@x", 'plain']);
  });
});
